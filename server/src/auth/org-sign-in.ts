/**
 * Okta mode: which Okta sign-in an access token belongs to, for the portal's own list of sessions (devices/) and
 * its refusal of a sign-in signed out from that list. Okta's access tokens name no session, but every token of one
 * sign-in carries the same `auth_time` (renewals and refreshes keep it; signing in again changes it), so the
 * account and that second name it; a `sid`, if an authorization server adds one, names it better. Never the token
 * itself: a sign-in outlives each of its tokens. The store keeps the key hashed (storage/org-sessions.ts).
 *
 * The limit: two sign-ins of one account in the same second are one sign-in to the portal (listed once, signed out
 * together).
 */
import type { VerifiedToken } from './verifier.js';

/** The tokens of an ended sign-in are refused on every call; its row's "last seen" moves at most once a minute. */
export const SIGN_IN_SEEN_RESOLUTION_MS = 60_000;

/** The clear key of the token's sign-in, or undefined when its claims name none (such a token is not listed). */
export function orgSignInOf({ userId, claims }: VerifiedToken): string | undefined {
  const { sid, auth_time: authTime } = claims;
  if (typeof sid === 'string' && sid !== '') return `${userId}\nsid:${sid}`;
  if (typeof authTime === 'number' && Number.isSafeInteger(authTime) && authTime > 0) {
    return `${userId}\nauth_time:${authTime}`;
  }
  return undefined;
}
