import { z } from 'zod';
import { preferredMethodSchema } from './factors.js';

/** Step-up verification (spec sections 3, 4 and 7). The server decides; the browser only shows the screens. */

/** How long a successful step-up lasts, on the server (grant) and in the browser (stored flow state). */
export const STEP_UP_TTL_MS = 300_000;

/** Step-up data: a map keyed by factor type. Only active factors are present. */
export const activeFactorsDataSchema = z.object({
  sms: z.object({ phoneNumber: z.string().optional() }).optional(),
  googleAuth: z.object({}).optional(),
  email: z.object({ maskedEmail: z.string() }).optional(),
  /** The holder's passkeys (contract/passkeys.ts), when there are any. A server of the spec sends none. */
  passkey: z.object({ count: z.number().int().min(1) }).optional(),
});
export type ActiveFactorsData = z.infer<typeof activeFactorsDataSchema>;
export type StepUpFactorType = keyof ActiveFactorsData;

/** GET /api/stepup/{sub}/challenge */
export const challengeResponseSchema = z.object({
  challengeUser: z.boolean(),
  activeFactorsData: activeFactorsDataSchema,
  /**
   * The holder's unused recovery codes, when there are any: the step-up screens then offer "Use a recovery code".
   * Not a factor (never in activeFactorsData); a server of the spec sends none.
   */
  recoveryCodes: z.object({ left: z.number().int().min(1) }).optional(),
  /**
   * The holder's default method (issue 22), only while it is among `activeFactorsData`: the screens open with it.
   * Absent: the fixed order. A server of the spec sends none.
   */
  preferredMethod: preferredMethodSchema.optional(),
});
export type ChallengeResponse = z.infer<typeof challengeResponseSchema>;

/** The answer of POST …/email/challenge: the code was sent. */
export const sendChallengeResponseSchema = z.object({
  status: z.literal('SENT'),
  maskedEmail: z.string(),
});
export type SendChallengeResponse = z.infer<typeof sendChallengeResponseSchema>;

/** Step-up codes are 1 to 10 characters (spec section 5); the server checks the same bounds. */
export const STEP_UP_CODE_MIN = 1;
export const STEP_UP_CODE_MAX = 10;

export const stepUpVerifyBodySchema = z.object(
  {
    passCode: z
      .string({ error: 'passCode must be text' })
      .trim()
      .min(STEP_UP_CODE_MIN, { error: 'passCode must not be empty' })
      .max(STEP_UP_CODE_MAX, { error: `passCode must be at most ${STEP_UP_CODE_MAX} characters` }),
  },
  { error: 'The body must be a JSON object with passCode' },
);
export type StepUpVerifyBody = z.infer<typeof stepUpVerifyBodySchema>;

/** The answer of a successful verify: the step-up grant and when it ends (ISO date). */
export const stepUpVerifyResponseSchema = z.object({
  status: z.literal('VERIFIED'),
  expiresAt: z.string(),
});
export type StepUpVerifyResponse = z.infer<typeof stepUpVerifyResponseSchema>;

/** The `error` text of a wrong code, for verify and activate alike (spec section 7). */
export const INVALID_CODE_ERROR = 'ERROR: invalid code';

/** The start of the `error` text of a 403 that asks for step-up verification first. */
export const STEP_UP_REQUIRED_ERROR = 'Step-up verification required';

/**
 * POST /api/stepup/{sub}/reauthenticate: the account's password again, for a user who has no active factor yet
 * and wants to turn on the first one more than 5 minutes after signing in ("Confirm it's you"). A correct password
 * lets this sign-in session turn on a first factor for 5 minutes; it answers like a step-up verify.
 */
export const reauthenticateBodySchema = z.strictObject(
  {
    password: z
      .string({ error: 'password must be text' })
      .min(1, { error: 'Enter your password' })
      .max(1024, { error: 'password is too long' }),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown field: ${issue.keys.join(', ')}`
        : 'The body must be a JSON object with password',
  },
);
export type ReauthenticateBody = z.infer<typeof reauthenticateBodySchema>;

/** The start of the `error` text of a 403 that asks for the password again before the first factor. */
export const REAUTHENTICATION_REQUIRED_ERROR = "Confirm it's you";

/**
 * How "Confirm it's you" is proven, carried as `proof` by the 403 reauthentication_required:
 * - password: the account's password again (reauthenticate), or a new sign-in;
 * - sign-in: only a new sign-in at the identity provider (its auth_time within the last 5 minutes), for a
 *   backend that cannot check passwords (Okta: reauthenticate answers 409 no_local_password there).
 * A server of the spec sends none, which means 'password'.
 */
export const reauthenticationProofSchema = z.enum(['password', 'sign-in']);
export type ReauthenticationProof = z.infer<typeof reauthenticationProofSchema>;

/** The `error` text of a wrong password at reauthenticate (400). */
export const REAUTHENTICATION_WRONG_PASSWORD_ERROR = 'The password is not correct.';
