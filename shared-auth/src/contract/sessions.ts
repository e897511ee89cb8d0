import { z } from 'zod';
import { subParamsSchema } from './call.js';
import { DEVICE_TYPES } from './activity.js';

/**
 * Devices (issue 22): the account's live sign-in sessions, the caller's own first (`current: true`), and signing
 * out one other session, all others, or every one. Embedded mode lists the embedded provider's sessions, and signing
 * one out ends it. Okta mode: the org's API lists no user's sessions, so the list holds the Okta sign-ins whose
 * access tokens reached the portal's API (recorded at the first call, described from it); signing one out refuses
 * its tokens at the portal's API from then, but cannot end the Okta session (it may stay open on that device for
 * other apps); "sign out everywhere" ends every Okta session of the account at the org, the caller's included.
 */

/** How a sign-out of sessions reached: one other session, all but the caller's, or every one (`detail` of the event). */
export const SESSION_SIGN_OUT_SCOPES = ['one', 'others', 'everywhere'] as const;
export type SessionSignOutScope = (typeof SESSION_SIGN_OUT_SCOPES)[number];

/**
 * DELETE /api/v1/users/{sub}/sessions/{id}. The id is opaque (20 random base62 characters of the session's row in
 * the portal, never the provider's session id nor anything a cookie or token carries); any other text is answered
 * like an unknown id: 404.
 */
export const sessionParamsSchema = subParamsSchema.extend({ id: z.string().min(1).max(100) });

/**
 * One live session. Described once, at sign-in (Okta mode: at its first call to the API): `browser` and `os` as the User-Agent parser knows them (or null),
 * `deviceType`, `country` (two letters, or null for a private or unknown address), and `address` coarse only
 * (`203.0.113.x`, an IPv6 /48): never the full address. `lastActiveAt` is when its tokens last reached the API
 * (kept to the minute), or null before they did.
 */
export const accountSessionSchema = z.object({
  id: z.string(),
  /** The session of the access token that asked: "This device". */
  current: z.boolean(),
  browser: z.string().nullable(),
  os: z.string().nullable(),
  deviceType: z.enum(DEVICE_TYPES).nullable(),
  country: z.string().nullable(),
  address: z.string().nullable(),
  /** ISO 8601, UTC. */
  signedInAt: z.string(),
  /** ISO 8601, UTC. */
  lastActiveAt: z.string().nullable(),
});
export type AccountSession = z.infer<typeof accountSessionSchema>;

/**
 * What signing out a session from the list ends: `session`, the sign-in session itself (embedded mode); `portal`,
 * only its access to this portal, its tokens refused by the API (Okta mode: the org's session may stay open on that
 * device for other apps). Absent: `session`.
 */
export const SESSION_SIGN_OUT_REACHES = ['session', 'portal'] as const;
export type SessionSignOutReach = (typeof SESSION_SIGN_OUT_REACHES)[number];

/**
 * The live sessions, the current one first, then the most recently active. Okta mode lists the sign-ins whose
 * tokens reached the API in the last 8 days (a sign-in's tokens renew with its `auth_time`, which names it).
 */
export const accountSessionListSchema = z.object({
  sessions: z.array(accountSessionSchema),
  reach: z.enum(SESSION_SIGN_OUT_REACHES).optional(),
});
export type AccountSessionList = z.infer<typeof accountSessionListSchema>;

/** POST …/sessions/sign-out-everywhere: every session ended, this one too; the page then signs in again. */
export const signedOutEverywhereSchema = z.object({ status: z.literal('SIGNED_OUT') });
export type SignedOutEverywhere = z.infer<typeof signedOutEverywhereSchema>;
