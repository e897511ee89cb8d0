/**
 * The ceremonies' challenges: 32 random bytes, sent once in the options, kept only as a SHA-256, for one purpose,
 * bound to one user and the session (or sign-in interaction) that asked, for 5 minutes. An answer's challenge is
 * read from its clientDataJSON and taken out of storage before anything else is checked, so every challenge is
 * used at most once, whatever the outcome, by one of any number of racing answers.
 */
import { createHash, randomBytes } from 'node:crypto';
import { API_ERRORS } from 'shared-auth/contract';
import { refusal } from '../http/errors.js';
import type { ChallengePurpose, WebAuthnChallengeStore } from '../storage/webauthn-challenges.js';
import { PASSKEY_ANSWER_ERROR, PASSKEY_CHALLENGE_ERROR } from './texts.js';

/** How long a ceremony's challenge is accepted. */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60 * 1000;

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * What a challenge is bound to: a session's grant chain, a sign-in interaction, or a password reset link (its
 * stored hash), never stored as such.
 */
export function challengeBinding(kind: 'session' | 'interaction' | 'reset-link', key: string): string {
  return sha256(`${kind}\n${key}`);
}

/**
 * A binding narrowed to one thing the challenge was issued for (Okta: the factor whose ceremony it is), so the
 * answer's challenge names it and nothing else has to be kept beside the row.
 */
export function bindingFor(binding: string, detail: string): string {
  return sha256(`${binding}\n${detail}`);
}

/** A new challenge's bytes; the options carry them base64url-encoded. */
export function newChallenge(): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(32);
  bytes.set(randomBytes(32));
  return bytes;
}

/** Keeps a challenge the options just carried (base64url, as the browser will echo it). */
export async function keepChallenge(
  store: WebAuthnChallengeStore,
  challenge: string,
  purpose: ChallengePurpose,
  userId: string | null,
  binding: string,
  now: number,
): Promise<void> {
  await store.put({
    challengeHash: sha256(challenge),
    purpose,
    userId,
    binding,
    expiresAt: now + PASSKEY_CHALLENGE_TTL_MS,
  });
}

/** The challenge an answer names (its clientDataJSON's), or a 400 when the answer is not readable. */
export function challengeOfAnswer(answer: Record<string, unknown>): string {
  const clientDataJSON = (answer.response as { clientDataJSON?: unknown } | undefined)?.clientDataJSON;
  if (typeof clientDataJSON !== 'string' || clientDataJSON.length > 4096) {
    throw refusal(API_ERRORS.passkeyRefused, PASSKEY_ANSWER_ERROR);
  }
  let challenge: unknown;
  try {
    challenge = (
      JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }
    ).challenge;
  } catch {
    throw refusal(API_ERRORS.passkeyRefused, PASSKEY_ANSWER_ERROR);
  }
  if (typeof challenge !== 'string' || challenge === '') {
    throw refusal(API_ERRORS.passkeyRefused, PASSKEY_ANSWER_ERROR);
  }
  return challenge;
}

/**
 * Takes the answer's challenge out (single use) and checks it was issued for this purpose, this binding (or one
 * of these) and (when given) this user, and has not expired. Returns the challenge, the user it was issued to
 * (null for a discoverable sign-in) and the binding it matched. Any mismatch: 400 PASSKEY_CHALLENGE_ERROR, and
 * the challenge is used up all the same.
 */
export async function takeChallenge(
  store: WebAuthnChallengeStore,
  answer: Record<string, unknown>,
  purpose: ChallengePurpose,
  expected: { binding: string | readonly string[]; userId?: string | undefined },
  now: number,
): Promise<{ challenge: string; userId: string | null; binding: string }> {
  const challenge = challengeOfAnswer(answer);
  const taken = await store.consume(sha256(challenge), purpose);
  const bindings: readonly string[] =
    typeof expected.binding === 'string' ? [expected.binding] : expected.binding;
  const refused =
    !taken ||
    !bindings.includes(taken.binding) ||
    taken.expiresAt <= now ||
    (expected.userId !== undefined && taken.userId !== expected.userId);
  if (refused) throw refusal(API_ERRORS.passkeyRefused, PASSKEY_CHALLENGE_ERROR);
  return { challenge, userId: taken.userId, binding: taken.binding };
}
