import { renderHook } from '@testing-library/react';
import { StrictMode } from 'react';
import { useUnmountSignal } from './useUnmountSignal.js';

describe('useUnmountSignal', () => {
  it('gives a live signal while mounted and aborts it on unmount', () => {
    const { result, unmount } = renderHook(() => useUnmountSignal());
    const signal = result.current();
    expect(signal.aborted).toBe(false);
    expect(result.current()).toBe(signal);
    unmount();
    expect(signal.aborted).toBe(true);
  });

  it("survives React's development double mount", () => {
    const { result, unmount } = renderHook(() => useUnmountSignal(), { wrapper: StrictMode });
    const signal = result.current();
    expect(signal.aborted).toBe(false);
    unmount();
    expect(signal.aborted).toBe(true);
  });
});
