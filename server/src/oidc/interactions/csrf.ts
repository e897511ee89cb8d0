import type { SignInKeys } from './secrets.js';

/** The hidden form field that carries the token on every sign-in form. */
export const CSRF_FIELD = 'csrf';

/**
 * The sign-in forms' CSRF token: an HMAC of the interaction's uid with a server key. A page of another site
 * cannot make one, and a token of one interaction is worth nothing in another (whose uid is also bound to the
 * browser by the provider's interaction cookie).
 */
export function csrfToken(keys: SignInKeys, interactionUid: string): string {
  return keys.sign('csrf', `interaction:${interactionUid}`);
}

export function isValidCsrfToken(keys: SignInKeys, interactionUid: string, token: unknown): boolean {
  return (
    typeof token === 'string' && token !== '' && keys.verify('csrf', `interaction:${interactionUid}`, token)
  );
}
