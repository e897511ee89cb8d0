import { z } from 'zod';

/**
 * Recovery codes: one-time codes the holder keeps on paper or in a password manager, to sign in or step up when the
 * phone or the mailbox is lost. A fallback, not a 2-step method: they never count among the active factors
 * (`activeFactorsData`, the last-factor rule), and they exist only while a 2-step method is on.
 */

/** How many codes one generation makes. */
export const RECOVERY_CODE_COUNT = 10;
/** At this many codes left or fewer, the page and the notice mail say to generate new ones. */
export const RECOVERY_CODES_LOW = 3;

/** Crockford's base32 alphabet (no I, L, O, U): 5 bits per character, 10 characters = 50 bits per code. */
export const CROCKFORD_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** A code as shown: two groups of five, `xxxxx-xxxxx`. */
export const RECOVERY_CODE_PATTERN = /^[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/;

/**
 * A code as the holder types it, made comparable: spaces and dashes dropped, upper case, and Crockford's look-alikes
 * read as the digits they stand for (O → 0, I and L → 1). Undefined when what is left is not 10 Crockford characters.
 */
export function normalizeRecoveryCode(typed: string): string | undefined {
  const compact = typed
    .replace(/[\s-]+/g, '')
    .toUpperCase()
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
  return /^[0-9A-HJKMNP-TV-Z]{10}$/.test(compact) ? compact : undefined;
}

/** A normalised code as shown: `ABCDE-FGHJK`. */
export function formatRecoveryCode(normalized: string): string {
  return `${normalized.slice(0, 5)}-${normalized.slice(5)}`;
}

/**
 * GET /api/recoverycodes/{sub}: what the Security page's section shows.
 * - available: false where the identity backend cannot accept them (Okta mode: its sign-in would not take ours);
 * - left / generatedAt: the codes not yet used of the current set, and when it was made (null: none yet).
 */
export const recoveryCodesStatusSchema = z.object({
  available: z.boolean(),
  left: z.number().int().min(0).max(RECOVERY_CODE_COUNT),
  total: z.number().int().min(0).max(RECOVERY_CODE_COUNT),
  generatedAt: z.string().nullable(),
});
export type RecoveryCodesStatus = z.infer<typeof recoveryCodesStatusSchema>;

/**
 * POST /api/recoverycodes/{sub}/generate: a new set, shown once (the server keeps only keyed hashes). Any older set
 * stops working in the same transaction.
 */
export const recoveryCodesGeneratedSchema = z.object({
  codes: z.array(z.string().regex(RECOVERY_CODE_PATTERN)).length(RECOVERY_CODE_COUNT),
  generatedAt: z.string(),
});
export type RecoveryCodesGenerated = z.infer<typeof recoveryCodesGeneratedSchema>;

/**
 * POST /api/stepup/{sub}/recovery-code/verify: step-up with one recovery code (used up when accepted). Longer than
 * a factor's code: the dash and spaces the holder may type are allowed and dropped.
 */
export const recoveryCodeVerifyBodySchema = z.object(
  {
    recoveryCode: z
      .string({ error: 'recoveryCode must be text' })
      .trim()
      .min(1, { error: 'recoveryCode must not be empty' })
      .max(32, { error: 'recoveryCode must be at most 32 characters' }),
  },
  { error: 'The body must be a JSON object with recoveryCode' },
);
export type RecoveryCodeVerifyBody = z.infer<typeof recoveryCodeVerifyBodySchema>;

/** The path segment of the recovery-code step-up (beside the factors' `google-auth` and `email`). */
export const RECOVERY_CODE_STEP_UP_SEGMENT = 'recovery-code';
