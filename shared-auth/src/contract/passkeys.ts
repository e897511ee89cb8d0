import { z } from 'zod';

/**
 * Passkeys (WebAuthn credentials): a 2-step method of their own, phishing-resistant because the browser binds each
 * one to the portal's origin. A holder may have several (a phone, a laptop, a security key); each counts as an active
 * 2-step method for the last-method rule and for step-up. The ceremonies' options and answers are WebAuthn's JSON
 * forms (what @simplewebauthn/browser takes and gives); the contract checks their outer shape only, the server
 * verifies them whole.
 */

/** Most passkeys one account may hold; registration options are refused beyond it. */
export const PASSKEYS_MAX = 10;
/** A passkey's name, as the holder types it. */
export const PASSKEY_NAME_MAX = 64;

/** The path segment of the passkey step-up (beside the factors' `google-auth` and `email`, and `recovery-code`). */
export const PASSKEY_STEP_UP_SEGMENT = 'passkey';

export const passkeySchema = z.object({
  /** The server's id of the passkey (not the credential id): the key of rename and remove. */
  id: z.string().min(1),
  name: z.string(),
  createdAt: z.string(),
  /** The last sign-in or step-up with it; null: never used. */
  lastUsedAt: z.string().nullable(),
  /** Backed up by its provider (a synced passkey: iCloud Keychain, Google Password Manager…), not bound to one device. */
  synced: z.boolean(),
});
export type Passkey = z.infer<typeof passkeySchema>;

/**
 * GET /api/passkeys/{sub}: the Security page's Passkeys section.
 * - available: false where the identity backend cannot hold passkeys for the portal;
 * - canRename: false where the backend keeps no names of ours (Okta mode): the page hides Rename;
 * - enrolment: 'ceremony' when the page runs the browser's ceremony against the portal, 'hosted' when the holder is
 *   sent to the identity provider's own enrolment page (Okta, when its passkey RP ID does not cover the portal).
 */
export const passkeyListSchema = z.object({
  available: z.boolean(),
  canRename: z.boolean(),
  enrolment: z.enum(['ceremony', 'hosted']),
  /**
   * With enrolment 'hosted': the identity provider's enrolment page, which sends the holder back to the Security
   * page when done. Absent otherwise.
   */
  hostedEnrolmentUrl: z.url({ protocol: /^https?$/ }).optional(),
  passkeys: z.array(passkeySchema).max(PASSKEYS_MAX),
});
export type PasskeyList = z.infer<typeof passkeyListSchema>;

/** A WebAuthn JSON object (options or a credential's answer): the outer shape only. */
const webAuthnJsonSchema = z.looseObject({});

/**
 * POST /api/passkeys/{sub}/registration/options: the options of `navigator.credentials.create()` (resident key
 * preferred, user verification required, the holder's passkeys excluded). The challenge is single use, bound to
 * this sign-in session, and lasts 5 minutes. Under step-up (or "Confirm it's you" for a first 2-step method).
 */
export const passkeyRegistrationOptionsSchema = z.object({
  options: webAuthnJsonSchema.extend({ challenge: z.string().min(1) }),
});
export type PasskeyRegistrationOptions = z.infer<typeof passkeyRegistrationOptionsSchema>;

/**
 * POST /api/passkeys/{sub}/registration/verify: the browser's answer to those options. The new passkey is named
 * after its authenticator (its AAGUID) or the browser and operating system that made it; the page then offers to
 * rename it.
 */
export const passkeyRegistrationBodySchema = z.object(
  { response: webAuthnJsonSchema.extend({ id: z.string().min(1).max(1024) }) },
  { error: 'The body must be a JSON object with response' },
);
export type PasskeyRegistrationBody = z.infer<typeof passkeyRegistrationBodySchema>;

/** PUT /api/passkeys/{sub}/{id}/name */
export const passkeyRenameBodySchema = z.strictObject(
  {
    name: z
      .string({ error: 'name must be text' })
      .trim()
      .min(1, { error: 'Enter a name' })
      .max(PASSKEY_NAME_MAX, { error: `The name must be at most ${PASSKEY_NAME_MAX} characters` }),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `Unknown field: ${issue.keys.join(', ')}`
        : 'The body must be a JSON object with name',
  },
);
export type PasskeyRenameBody = z.infer<typeof passkeyRenameBodySchema>;

/** The `{id}` of one passkey in the path. */
export const passkeyParamsSchema = z.object({
  sub: z.string().min(1).max(100),
  id: z.string().min(1).max(100),
});

/**
 * POST /api/stepup/{sub}/passkey/options: the options of `navigator.credentials.get()` for step-up (the holder's
 * passkeys allowed, user verification required; single-use challenge bound to this session, 5 minutes).
 */
export const passkeyAuthenticationOptionsSchema = z.object({
  options: webAuthnJsonSchema.extend({ challenge: z.string().min(1) }),
});
export type PasskeyAuthenticationOptions = z.infer<typeof passkeyAuthenticationOptionsSchema>;

/** POST /api/stepup/{sub}/passkey/verify: the browser's assertion; answers like a code's verify. */
export const passkeyAuthenticationBodySchema = z.object(
  { response: webAuthnJsonSchema.extend({ id: z.string().min(1).max(1024) }) },
  { error: 'The body must be a JSON object with response' },
);
export type PasskeyAuthenticationBody = z.infer<typeof passkeyAuthenticationBodySchema>;
