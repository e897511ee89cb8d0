import { z } from 'zod';
import { preferredMethodSchema } from './factors.js';

/** The 2-step factors' calls (spec sections 3 and 7): /api/multifactor/{googleauth|email}/{sub}/… */

/** Enrolment codes are 6 digits (spec section 9). */
export const ENROLMENT_CODE_LENGTH = 6;

/** POST /api/multifactor/googleauth/{sub}/enroll: an otpauth:// URI for the QR code, and its secret. */
export const googleEnrollResponseSchema = z.object({
  qrLink: z.string().startsWith('otpauth://totp/'),
  secret: z.string().min(16),
});
export type GoogleEnrollResponse = z.infer<typeof googleEnrollResponseSchema>;

/**
 * What turning a factor off (opt-out) does to it, as the server's identity backend decides:
 * - keeps: the factor stays set up, turned off, and opt-in turns it back on (the spec; the embedded backend);
 * - removes: the factor is removed from the account, and turning it on again means setting it up again (Okta:
 *   its Management API has no "off" for one factor, so off is a removal there).
 */
export const factorTurnOffSchema = z.enum(['keeps', 'removes']);
export type FactorTurnOff = z.infer<typeof factorTurnOffSchema>;

/**
 * GET …/details: whether the factor is enrolled (activated) and since when (ISO date, null if not), and what
 * turning it off does (`turnOff`; a server of the spec sends none, which means 'keeps').
 */
export const factorDetailsResponseSchema = z.object({
  enrolled: z.boolean(),
  enrolledDate: z.string().nullable(),
  turnOff: factorTurnOffSchema.optional(),
});
export type FactorDetailsResponse = z.infer<typeof factorDetailsResponseSchema>;

/** Server-side status of a factor. Only ACTIVE counts as enabled. */
export const factorStatusSchema = z.enum(['PENDING_ACTIVATION', 'ACTIVE', 'INACTIVE', 'NOT_ENROLLED']);
export type FactorStatus = z.infer<typeof factorStatusSchema>;

/** POST /api/multifactor/email/{sub}/enroll: a code went to the account's email; activation is pending. */
export const emailEnrollResponseSchema = z.object({ status: factorStatusSchema });
export type EmailEnrollResponse = z.infer<typeof emailEnrollResponseSchema>;

/** POST …/activate */
export const activateBodySchema = z.object(
  {
    code: z
      .string({ error: 'code must be text' })
      .trim()
      .min(1, { error: 'code must not be empty' })
      .max(10, { error: 'code must be at most 10 characters' }),
  },
  { error: 'The body must be a JSON object with code' },
);
export type ActivateBody = z.infer<typeof activateBodySchema>;

/** DELETE …/reset */
export const resetBodySchema = z.object(
  { optOut: z.literal(true, { error: 'optOut must be true' }) },
  { error: 'The body must be a JSON object with optOut: true' },
);
export type ResetBody = z.infer<typeof resetBodySchema>;

/** The answer of activate, opt-in, opt-out and reset: the factor's status afterwards. */
export const factorStatusResponseSchema = z.object({
  status: factorStatusSchema,
  enrolledDate: z.string().nullable(),
});
export type FactorStatusResponse = z.infer<typeof factorStatusResponseSchema>;

/** The server refuses to turn off or remove a factor unless this many are active (spec section 9). */
export const MIN_ACTIVE_FACTORS_TO_TURN_OFF = 2;

/**
 * PUT /api/v1/users/{sub}/multifactor/preferred: "Use by default" on one of the holder's active 2-step methods. Under
 * step-up like every factor change; a method that is not active is refused (409 factor_state).
 */
export const preferredMethodBodySchema = z.strictObject(
  { method: preferredMethodSchema },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown field: ${issue.keys.join(', ')}`
        : 'The body must be a JSON object with method',
  },
);
export type PreferredMethodBody = z.infer<typeof preferredMethodBodySchema>;

/** The answer: the holder's default method now. */
export const preferredMethodResponseSchema = z.object({ preferredMethod: preferredMethodSchema });
export type PreferredMethodResponse = z.infer<typeof preferredMethodResponseSchema>;
