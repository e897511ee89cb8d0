/**
 * Leaving the page for another site (the identity provider's own pages): a plain navigation, in one place so the
 * tests replace it (jsdom cannot navigate).
 */
export function leavePageFor(url: string): void {
  window.location.assign(url);
}
