import { act, render, screen } from '@testing-library/react';
import { NARROW_SCREEN_QUERY, useNarrowScreen } from './useNarrowScreen.js';

function Layout() {
  return <p>{useNarrowScreen() ? 'narrow' : 'wide'}</p>;
}

/** A window whose width the test sets: matchMedia answers for NARROW_SCREEN_QUERY and tells of changes. */
function resizableWindow(narrow: boolean) {
  const listeners = new Set<() => void>();
  const original = window.matchMedia;
  jest.spyOn(window, 'matchMedia').mockImplementation((query) =>
    query === NARROW_SCREEN_QUERY
      ? ({
          ...original(query),
          get matches() {
            return narrow;
          },
          addEventListener: (_type: string, listener: () => void) => {
            listeners.add(listener);
          },
          removeEventListener: (_type: string, listener: () => void) => {
            listeners.delete(listener);
          },
        } as unknown as MediaQueryList)
      : original(query),
  );
  return {
    resize(toNarrow: boolean) {
      narrow = toNarrow;
      act(() => listeners.forEach((listener) => listener()));
    },
    listeners,
  };
}

describe('useNarrowScreen', () => {
  it('is narrow below 768 px from the first render', () => {
    resizableWindow(true);
    render(<Layout />);
    expect(screen.getByText('narrow')).toBeInTheDocument();
  });

  it('follows the window as it is resized or zoomed, and stops listening when unmounted', () => {
    const screenSize = resizableWindow(false);
    const { unmount } = render(<Layout />);
    expect(screen.getByText('wide')).toBeInTheDocument();
    screenSize.resize(true);
    expect(screen.getByText('narrow')).toBeInTheDocument();
    screenSize.resize(false);
    expect(screen.getByText('wide')).toBeInTheDocument();
    unmount();
    expect(screenSize.listeners.size).toBe(0);
  });
});
