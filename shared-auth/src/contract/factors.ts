import { z } from 'zod';

/**
 * The 2-step factors, one spelling for every layer: the keys of the spec's step-up data and factors data
 * (`googleAuth`, `email`). Paths spell them differently; the maps below are the only place that knows how.
 */
export const factorNameSchema = z.enum(['googleAuth', 'email']);
export type FactorName = z.infer<typeof factorNameSchema>;
export const FACTOR_NAMES: readonly FactorName[] = factorNameSchema.options;

/**
 * The 2-step methods a holder can make their default (issue 22): the factors, and `passkey` for all of the holder's
 * passkeys together. The sign-in's 2-step page and the step-up screens open with it; the others stay one click away.
 */
export const preferredMethodSchema = z.enum(['googleAuth', 'email', 'passkey'], {
  error: 'method must be googleAuth, email or passkey',
});
export type PreferredMethod = z.infer<typeof preferredMethodSchema>;
export const PREFERRED_METHODS: readonly PreferredMethod[] = preferredMethodSchema.options;

/** What the portal calls each factor in its answers and notices: the one table of the factors' labels. */
export const FACTOR_LABELS = {
  googleAuth: 'Google Authenticator',
  email: 'Email verification',
} as const satisfies Record<FactorName, string>;

/** The factor's segment in /api/multifactor/{googleauth|email}/{sub}/… (spec section 7). */
export const MULTIFACTOR_PATH_SEGMENTS = {
  googleAuth: 'googleauth',
  email: 'email',
} as const satisfies Record<FactorName, string>;
export type MultifactorPathSegment = (typeof MULTIFACTOR_PATH_SEGMENTS)[FactorName];

/** The factor's segment in /api/stepup/{sub}/{google-auth|email}/verify (spec section 7). */
export const STEP_UP_PATH_SEGMENTS = { googleAuth: 'google-auth', email: 'email' } as const satisfies Record<
  FactorName,
  string
>;
export type StepUpPathSegment = (typeof STEP_UP_PATH_SEGMENTS)[FactorName];

function inverse<S extends string>(segments: Record<FactorName, S>): Record<S, FactorName> {
  return Object.fromEntries(FACTOR_NAMES.map((name) => [segments[name], name])) as Record<S, FactorName>;
}

/** Path segment → factor name, for a server that reads the segment from the path. */
export const FACTOR_OF_MULTIFACTOR_SEGMENT = inverse(MULTIFACTOR_PATH_SEGMENTS);
export const FACTOR_OF_STEP_UP_SEGMENT = inverse(STEP_UP_PATH_SEGMENTS);
