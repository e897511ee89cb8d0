/**
 * Signing in with a passkey on the provider's pages: the second step after the password (the account's passkeys),
 * or passwordless on the sign-in page (any discoverable passkey: the answer's userHandle names the account). The
 * challenge is bound to the interaction; the verification is the passkeys domain's (PasskeyService.signInVerify:
 * the challenge taken once, origin, RP ID, user verification, the credential's owner, the counter), the same as the
 * step-up's.
 */
import type { User } from '../../directory/directory.js';
import { challengeBinding } from '../../passkeys/challenges.js';
import type { PasskeyService } from '../../passkeys/service.js';
import { PASSKEY_RESPONSE_FIELD } from './passkey-pages.js';

/**
 * What a passkey sign-in puts in `amr`, in RFC 8176's values: `hwk`, proof of possession of a hardware-secured key
 * (the credential's private key, which the authenticator never releases), `user`, the user verification the server
 * requires (PIN or biometric: the RFC has no one value for "either"), and `mfa`: something held and something
 * known or been, two factors by itself. oidc-provider passes `amr` through as given; Okta documents `hwk` among the
 * values it emits, but what it reports for WebAuthn in particular was not checked here.
 */
export const PASSKEY_AMR: readonly string[] = ['hwk', 'user', 'mfa'];

/** The challenges of a sign-in: bound to its interaction (whose uid the interaction cookie ties to the browser). */
export function interactionBinding(interactionUid: string): string {
  return challengeBinding('interaction', interactionUid);
}

export type PasskeyAnswer = { id: string } & Record<string, unknown>;

/** The browser's answer from the form's field (JSON), when it has the outer shape of one; else undefined. */
export function passkeyAnswerOf(form: Record<string, string | undefined>): PasskeyAnswer | undefined {
  const text = form[PASSKEY_RESPONSE_FIELD] ?? '';
  if (text === '') return undefined;
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) return undefined;
  const { id, response } = answer as { id?: unknown; response?: unknown };
  if (typeof id !== 'string' || id === '' || typeof response !== 'object' || response === null)
    return undefined;
  return answer as PasskeyAnswer;
}

/**
 * Verifies a passkey sign-in of this interaction: for `user` (after the password, under the wrong-code throttle) or
 * passwordless (`user` null). Returns the account's id; refusals are the passkeys' HttpErrors (texts to show).
 */
export function verifyPasskeySignIn(
  passkeys: PasskeyService,
  interactionUid: string,
  answer: PasskeyAnswer,
  user: User | null,
  userAgent: string | undefined,
): Promise<string> {
  return passkeys.signInVerify(answer, interactionBinding(interactionUid), user, userAgent);
}
