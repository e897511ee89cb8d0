import { useSyncExternalStore } from 'react';

/**
 * Below antd's `md` breakpoint (768 px): a phone, or a desktop window zoomed to 250 % or more (WCAG 1.4.10 asks
 * for 320 CSS px, 1280 px at 400 %). There the side navigation and the header links fold into the header's Menu
 * button, so no page scrolls sideways and nothing floats over the page's heading.
 */
export const NARROW_SCREEN_QUERY = '(max-width: 767.98px)';

function subscribe(onChange: () => void): () => void {
  if (typeof window === 'undefined' || !window.matchMedia) return () => {};
  const query = window.matchMedia(NARROW_SCREEN_QUERY);
  query.addEventListener?.('change', onChange);
  return () => query.removeEventListener?.('change', onChange);
}

function isNarrow(): boolean {
  return typeof window !== 'undefined' && window.matchMedia?.(NARROW_SCREEN_QUERY).matches === true;
}

/** Whether the window is narrow (NARROW_SCREEN_QUERY), kept up to date as it is resized or zoomed. */
export function useNarrowScreen(): boolean {
  return useSyncExternalStore(subscribe, isNarrow, () => false);
}
