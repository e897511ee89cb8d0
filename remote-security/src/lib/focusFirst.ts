/** Focuses the first of the elements that takes the focus (connected, enabled, focusable); false if none did. */
export function focusFirst(...candidates: (HTMLElement | null | undefined)[]): boolean {
  for (const element of candidates) {
    if (!element?.isConnected) continue;
    element.focus({ preventScroll: false });
    if (element.ownerDocument.activeElement === element) return true;
  }
  return false;
}
