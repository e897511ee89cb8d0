import { z } from 'zod';

/**
 * Activity (issue 22): the account's security events of the last 90 days, newest first, paged. The server writes
 * each in the transaction of the change it records (never from the browser); the page shows them. In Okta mode the
 * server reads them from the org's System Log (501 `activity_unavailable` when its credentials may not read it).
 */

/**
 * Every kind of event, declared once (the server's store, its writers and the page all take this union):
 * - `signed-in`: a sign-in completed; `detail` is its method (SIGN_IN_METHODS);
 * - `sign-in-failed`: a sign-in of this account was refused; `detail` is why (SIGN_IN_FAILURES);
 * - `signed-out`: a sign-in session of the account was signed out (the provider's logout);
 * - `password-changed`: the password was changed on the Password page;
 * - `password-reset`: the password was reset with a mailed link ("Forgot password?");
 * - `method-added`: a 2-step method was set up (an authenticator app or email activated, a passkey registered);
 * - `method-turned-on` / `method-turned-off`: a set-up factor was turned back on / off;
 * - `method-removed`: a 2-step method was removed (a factor reset, a passkey deleted);
 * - `recovery-codes-generated`: a new set of recovery codes was made (the old one stopped working);
 * - `recovery-code-used`: a recovery code was used; `detail` is what for (RECOVERY_CODE_USES);
 * - `sessions-signed-out`: sessions were signed out on the Devices list; `detail` is which (SESSION_SIGN_OUT_SCOPES:
 *   `one` other session, all `others`, or `everywhere`);
 * - `reported-not-me`: the holder reported an event as not theirs ("This wasn't me"), which signed out every
 *   session of the account; `detail` is the reported event's kind.
 * For the method kinds `detail` is the method (ACTIVITY_METHODS).
 */
export const ACTIVITY_EVENT_KINDS = [
  'signed-in',
  'sign-in-failed',
  'signed-out',
  'password-changed',
  'password-reset',
  'method-added',
  'method-turned-on',
  'method-turned-off',
  'method-removed',
  'recovery-codes-generated',
  'recovery-code-used',
  'sessions-signed-out',
  'reported-not-me',
] as const;
export const activityEventKindSchema = z.enum(ACTIVITY_EVENT_KINDS);
export type ActivityEventKind = z.infer<typeof activityEventKindSchema>;

/** How a sign-in was completed: the password alone, the password and a code, a passkey, a recovery code. */
export const SIGN_IN_METHODS = ['password', 'password-and-code', 'passkey', 'recovery-code'] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

/** Why a sign-in of the account was refused. `locked`: this failure locked further attempts for a while. */
export const SIGN_IN_FAILURES = ['wrong-password', 'wrong-code', 'locked'] as const;
export type SignInFailure = (typeof SIGN_IN_FAILURES)[number];

/** The 2-step method an event of the method kinds names. */
export const ACTIVITY_METHODS = ['googleAuth', 'email', 'passkey'] as const;
export type ActivityMethod = (typeof ACTIVITY_METHODS)[number];

/** What a recovery code was used for. */
export const RECOVERY_CODE_USES = ['sign-in', 'step-up', 'password-reset'] as const;

/** How long events are kept, and how far back the list reaches: 90 days. */
export const ACTIVITY_RETENTION_DAYS = 90;
/** The most events one page holds (`limit`), and the default. */
export const ACTIVITY_PAGE_MAX = 50;
export const ACTIVITY_PAGE_DEFAULT = 20;

/** The kind of device, from the browser's User-Agent. */
export const DEVICE_TYPES = ['desktop', 'mobile', 'tablet'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];

/** A page's cursor: opaque to the page (the `next` of the page before), `<ms>_<event id>` on the wire. */
export const ACTIVITY_CURSOR_PATTERN = /^\d{1,15}_[A-Za-z0-9]{20}$/;
/**
 * Okta mode's cursor: `o<until ms>.<after>`, the position of the org's System Log's next page (its `until` and its
 * opaque `after` token, URL-safe characters only). Each mode takes only its own form (the server refuses the other
 * with the same 400), so embedded mode's check is as strict as the pattern above.
 */
export const ORG_ACTIVITY_CURSOR_PATTERN = /^o\d{1,15}\.[A-Za-z0-9._~-]{1,200}$/;
/** The refusal of a `before` that is not the `next` of an earlier page (of this mode). */
export const ACTIVITY_CURSOR_ERROR = 'before must be the next of an earlier page';

/**
 * GET /api/v1/users/{sub}/activity?before=<cursor>&limit=<n>: `before` the `next` of the page before (absent: the
 * newest), `limit` 1–50 (default 20).
 */
export const activityQuerySchema = z.object(
  {
    before: z
      .string({ error: 'before must be text' })
      .refine((text) => ACTIVITY_CURSOR_PATTERN.test(text) || ORG_ACTIVITY_CURSOR_PATTERN.test(text), {
        error: ACTIVITY_CURSOR_ERROR,
      })
      .optional(),
    limit: z
      .string({ error: 'limit must be a whole number' })
      .regex(/^\d{1,3}$/, { error: `limit must be a whole number from 1 to ${ACTIVITY_PAGE_MAX}` })
      .refine((text) => Number(text) >= 1 && Number(text) <= ACTIVITY_PAGE_MAX, {
        error: `limit must be a whole number from 1 to ${ACTIVITY_PAGE_MAX}`,
      })
      .optional(),
  },
  { error: 'The query takes before and limit only' },
);
export type ActivityQuery = z.infer<typeof activityQuerySchema>;

/**
 * One event. `address` is coarse (an IPv4 address with its last part hidden, `203.0.113.x`; an IPv6 address's
 * first three groups, `2001:db8:85a3::/48`); the full address is never stored. `country` is a two-letter code, or
 * null when unknown (a private or loopback address). `browser` and `os` only as the User-Agent parser knows them.
 */
export const activityEventSchema = z.object({
  id: z.string(),
  kind: activityEventKindSchema,
  detail: z.string().nullable(),
  /** ISO 8601, UTC. */
  at: z.string(),
  browser: z.string().nullable(),
  os: z.string().nullable(),
  deviceType: z.enum(DEVICE_TYPES).nullable(),
  country: z.string().nullable(),
  address: z.string().nullable(),
});
export type ActivityEvent = z.infer<typeof activityEventSchema>;

/** A page of events, newest first; `next` is the cursor of the following page, null on the last. */
export const activityPageSchema = z.object({
  events: z.array(activityEventSchema),
  next: z.string().nullable(),
});
export type ActivityPage = z.infer<typeof activityPageSchema>;

/**
 * POST /api/v1/users/{sub}/activity/not-me: the holder reports one of their events ("This wasn't me"). `eventId` is
 * an event's `id` from the list (the portal's own ids, or the org's System Log ids in Okta mode).
 */
export const activityNotMeBodySchema = z.strictObject(
  {
    eventId: z
      .string({ error: 'eventId must be text' })
      .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'eventId must be the id of an event in the list' }),
  },
  { error: 'The body takes eventId only' },
);
export type ActivityNotMeBody = z.infer<typeof activityNotMeBodySchema>;
