import { act, renderHook } from '@testing-library/react';
import { RESEND_SECONDS, resendLabel, useCountdown } from './useCountdown.js';

describe('resend countdown', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('counts 30 seconds down, one a second, to 0', () => {
    const { result } = renderHook(() => useCountdown());
    expect(result.current.remaining).toBe(0);
    act(() => result.current.start(RESEND_SECONDS));
    expect(result.current.remaining).toBe(30);
    act(() => jest.advanceTimersByTime(1000));
    expect(result.current.remaining).toBe(29);
    act(() => jest.advanceTimersByTime(28_000));
    expect(result.current.remaining).toBe(1);
    act(() => jest.advanceTimersByTime(1000));
    expect(result.current.remaining).toBe(0);
    act(() => jest.advanceTimersByTime(5000));
    expect(result.current.remaining).toBe(0);
  });

  it("labels: 'Resend ({n}s)', then 'Resend Code'", () => {
    expect(resendLabel(30)).toBe('Resend (30s)');
    expect(resendLabel(1)).toBe('Resend (1s)');
    expect(resendLabel(0)).toBe('Resend Code');
  });
});
