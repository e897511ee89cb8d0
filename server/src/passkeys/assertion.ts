/**
 * Verifies a passkey's authentication answer (an assertion) against a challenge already taken: for a known user
 * (step-up, or a sign-in after the password) or for whoever holds the credential (a discoverable passkey, no user
 * known yet). Shared by the step-up and, next, the sign-in's passkey step, so both refuse the same answers the same
 * way. A signature-valid answer whose counter did not move forward marks the passkey cloned: only a holder of the
 * private key can sign, so an unsigned forgery can never block someone's passkey.
 */
import {
  verifyAuthenticationResponse,
  type AuthenticationResponseJSON,
  type AuthenticatorTransport,
} from '@simplewebauthn/server';
import { API_ERRORS } from 'shared-auth/contract';
import type { PasskeyRelyingParty } from '../config/passkey-rp.js';
import { refusal } from '../http/errors.js';
import type { Storage } from '../storage/index.js';
import type { PasskeyRecord } from '../storage/passkeys.js';
import {
  PASSKEY_ANSWER_ERROR,
  PASSKEY_CLONED_ERROR,
  PASSKEY_UNKNOWN_ERROR,
  PASSKEY_USER_VERIFICATION_ERROR,
} from './texts.js';

export interface AssertionDeps {
  storage: Storage;
  rp: PasskeyRelyingParty;
  now: () => number;
  /** A passkey was just marked cloned, in `tx`, by an answer from `userAgent`: queue the holder's notice there. */
  onCloned(passkey: PasskeyRecord, tx: Storage, userAgent: string | undefined): Promise<void>;
}

export interface VerifiedAssertion {
  passkey: PasskeyRecord;
  /** The answer's signature counter: record it with the use (PasskeyStore.recordUse). */
  newCounter: number;
}

const refused = (message: string) => refusal(API_ERRORS.passkeyRefused, message);

/**
 * A ceremony's answer that @simplewebauthn/server would not verify (registration or assertion), as the holder's
 * refusal: their authenticator skipped user verification (they can act on that), or the answer is no good.
 */
export function verificationRefusal(error: unknown) {
  const message = error instanceof Error ? error.message : '';
  return refused(
    /user verification|could not be verified/i.test(message)
      ? PASSKEY_USER_VERIFICATION_ERROR
      : PASSKEY_ANSWER_ERROR,
  );
}

/** The user handle a passkey of this user carries (the user id's bytes), base64url as answers send it. */
export function userHandleOf(userId: string): string {
  return Buffer.from(userId, 'utf8').toString('base64url');
}

/**
 * The answer verified against `challenge` (taken with takeChallenge): signed by a usable passkey of `userId` (or
 * of its holder when `userId` is null), for this origin and RP ID, with user verification. Refusals are 400
 * passkey_refused with a text the holder can act on.
 */
export async function verifyPasskeyAssertion(
  deps: AssertionDeps,
  answer: { id: string } & Record<string, unknown>,
  challenge: string,
  userId: string | null,
  userAgent?: string | undefined,
): Promise<VerifiedAssertion> {
  const passkey = await deps.storage.passkeys.byCredentialId(answer.id);
  if (!passkey || (userId !== null && passkey.userId !== userId)) throw refused(PASSKEY_UNKNOWN_ERROR);
  if (userId === null) {
    // A discoverable passkey names its user: it must be the holder's.
    const handle = (answer.response as { userHandle?: unknown } | undefined)?.userHandle;
    if (handle !== userHandleOf(passkey.userId)) throw refused(PASSKEY_UNKNOWN_ERROR);
  }
  if (passkey.clonedAt !== null) throw refused(PASSKEY_CLONED_ERROR);
  let verification;
  try {
    verification = await verifyAuthenticationResponse({
      response: answer as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: deps.rp.origin,
      expectedRPID: deps.rp.id,
      // The counter is checked below, so a regression marks the passkey instead of only failing this answer.
      credential: {
        id: passkey.credentialId,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
        counter: 0,
        transports: passkey.transports as AuthenticatorTransport[],
      },
      requireUserVerification: true,
    });
  } catch (error) {
    throw verificationRefusal(error);
  }
  const { verified, authenticationInfo } = verification;
  if (!verified) throw refused(PASSKEY_ANSWER_ERROR);
  if (!authenticationInfo.userVerified) throw refused(PASSKEY_USER_VERIFICATION_ERROR);
  const stored = passkey.counter;
  const next = authenticationInfo.newCounter;
  // WebAuthn §6.1.1: a counter in use must grow with every signature; one that did not is a copied key's.
  if ((stored > 0 || next > 0) && next <= stored) {
    await deps.storage.transaction(async (tx) => {
      if (await tx.passkeys.markCloned(passkey.id, deps.now())) await deps.onCloned(passkey, tx, userAgent);
    });
    throw refused(PASSKEY_CLONED_ERROR);
  }
  return { passkey, newCounter: next };
}
