/**
 * Devices in Okta mode (issue 22): the portal's own list of the account's Okta sign-ins. Okta's API lists no
 * user's sessions, so the portal records a sign-in the first time one of its access tokens reaches the API (keyed by
 * the account and the tokens' `auth_time`, or `sid`: auth/org-sign-in.ts), described from that call's User-Agent
 * and address as embedded mode describes a sign-in, with "last active" moved at most once a minute.
 *
 * Signing one out cannot end the Okta session (Okta ends a user's sessions only all at once): the sign-in's row is
 * marked ended, and the auth hook refuses its tokens from the next call on every instance (auth/sessions.ts
 * `orgSessions`), renewed ones too, since they keep the sign-in's `auth_time`. Its step-up grants are keyed by its
 * tokens (factors/http.ts), which are refused before any grant is read: none of them can be used again, and they
 * expire within minutes. The org's session may stay open on that device for other apps of the organization.
 *
 * Bounded: a sign-in whose tokens have not reached the API for the retention window (the longest life of an Okta
 * access token, 24 hours, plus Okta's default refresh token idle window, 7 days) is dropped from the list and its
 * row deleted by the job; an ended row is kept as long as its tokens keep coming (each refusal moves its "last
 * seen"), so it goes only once no token of that sign-in came for a whole window.
 */
import type { AccountSession } from 'shared-auth/contract';
import { orgSignInOf } from '../auth/org-sign-in.js';
import type { VerifiedToken } from '../auth/verifier.js';
import type { ClientDescription } from '../clients/describe.js';
import type { Storage } from '../storage/index.js';
import { hashedId } from '../storage/provider.js';
import { sessionView, thisDeviceFirst } from './session-view.js';

/** Okta's longest access token lifetime (its default is 1 hour). */
const ACCESS_TOKEN_LIFETIME_MS = 24 * 60 * 60 * 1000;
/** Okta's default refresh token rule: it expires when not used for 7 days. */
const REFRESH_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;
/** A sign-in not seen for this long is no longer listed, and its row is deleted (ended or not). */
export const ORG_SESSION_RETENTION_MS = ACCESS_TOKEN_LIFETIME_MS + REFRESH_WINDOW_MS;

/** The hash the store keeps of the token's sign-in, or undefined when its claims name none. */
export function orgSignInHashOf(token: VerifiedToken): string | undefined {
  const signIn = orgSignInOf(token);
  return signIn === undefined ? undefined : hashedId(signIn);
}

/**
 * The row of a sign-in as the call that first brought its tokens describes it, or undefined for a token that names
 * no sign-in. Signed in at the tokens' `auth_time` (a token with a `sid` but none: when first seen).
 */
export function orgSessionSeen(token: VerifiedToken, described: ClientDescription, now: number) {
  const signIn = orgSignInOf(token);
  if (signIn === undefined) return undefined;
  const authTime = token.claims.auth_time;
  const signedInAt = typeof authTime === 'number' ? authTime * 1000 : now;
  return { ...described, userId: token.userId, signIn, signedInAt };
}

/** The account's listed sign-ins (live and seen within the window), the caller's first, then the most recent. */
export async function listOrgSessions(
  within: Storage,
  token: VerifiedToken,
  now: number,
): Promise<AccountSession[]> {
  const current = orgSignInHashOf(token);
  const rows = await within.orgSessions.listLive(token.userId, now - ORG_SESSION_RETENTION_MS);
  return thisDeviceFirst(rows.map((row) => sessionView(row, row.signInHash === current, row.lastSeenAt)));
}
