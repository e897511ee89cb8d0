/**
 * The embedded backend's passkeys: the portal's own `passkeys` table (storage/passkeys.ts), its challenges, and
 * every ceremony verified here with @simplewebauthn/server (origin, RP ID, user verification, the credential's
 * owner and its counter). What PasskeyService did before there was an Okta backend.
 */
import { randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyRegistrationResponse,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { API_ERRORS, PASSKEYS_MAX, type Passkey } from 'shared-auth/contract';
import type { PasskeyRelyingParty } from '../config/passkey-rp.js';
import type { Actor } from '../factors/actor.js';
import { refusal } from '../http/errors.js';
import type { Storage } from '../storage/index.js';
import type { PasskeyRecord } from '../storage/passkeys.js';
import type { User } from '../storage/users.js';
import {
  verificationRefusal,
  verifyPasskeyAssertion,
  type AssertionDeps,
  type VerifiedAssertion,
} from './assertion.js';
import type {
  PasskeyAnswer,
  PasskeyAssertion,
  PasskeyBackend,
  PasskeyRegistration,
  PasskeyRemoval,
  WebAuthnOptionsJson,
} from './backend.js';
import { keepChallenge, newChallenge, PASSKEY_CHALLENGE_TTL_MS, takeChallenge } from './challenges.js';
import { defaultPasskeyName } from './naming.js';
import {
  NO_PASSKEY_ERROR,
  PASSKEY_ALREADY_REGISTERED_ERROR,
  PASSKEY_ANSWER_ERROR,
  PASSKEY_NAME_CHARACTERS_ERROR,
  PASSKEY_NOT_FOUND_ERROR,
  PASSKEY_USER_VERIFICATION_ERROR,
  PASSKEYS_MAX_ERROR,
} from './texts.js';

/** WebAuthn's transport names (AuthenticatorTransport). */
const TRANSPORTS: ReadonlySet<string> = new Set([
  'ble',
  'cable',
  'hybrid',
  'internal',
  'nfc',
  'smart-card',
  'usb',
]);

/** What the relying party calls itself in the browser's passkey dialogs. */
export const RP_NAME = 'My Profile';

const refused = (message: string) => refusal(API_ERRORS.passkeyRefused, message);

export function passkeyOf(record: PasskeyRecord): Passkey {
  return {
    id: record.id,
    name: record.name,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUsedAt: record.lastUsedAt === null ? null : new Date(record.lastUsedAt).toISOString(),
    synced: record.backedUp,
  };
}

export interface EmbeddedPasskeyBackendOptions {
  storage: Storage;
  rp: PasskeyRelyingParty;
  now: () => number;
  /** A passkey was just marked cloned, in `tx`, by an answer from `userAgent`: queue the holder's notice there. */
  onCloned: AssertionDeps['onCloned'];
}

export class EmbeddedPasskeyBackend implements PasskeyBackend {
  readonly kind = 'embedded' as const;
  readonly inStorage = true;
  readonly canRename = true;
  readonly stepUp = true;
  private readonly storage: Storage;

  constructor(private readonly options: EmbeddedPasskeyBackendOptions) {
    this.storage = options.storage;
  }

  /** The verification of assertions, shared with the sign-in's passkey step. */
  get assertions(): AssertionDeps {
    const { storage, rp, now, onCloned } = this.options;
    return { storage, rp, now, onCloned };
  }

  async enrolment() {
    return { enrolment: 'ceremony' as const };
  }

  async list(userId: string): Promise<Passkey[]> {
    return (await this.storage.passkeys.list(userId)).map(passkeyOf);
  }

  countUsable(userId: string, within: Storage = this.storage): Promise<number> {
    return within.passkeys.countUsable(userId);
  }

  async registrationOptions(user: User, binding: string): Promise<WebAuthnOptionsJson> {
    const existing = await this.storage.passkeys.list(user.id);
    if (existing.length >= PASSKEYS_MAX)
      throw refusal(API_ERRORS.factorState, PASSKEYS_MAX_ERROR(PASSKEYS_MAX));
    const options = await generateRegistrationOptions({
      rpName: RP_NAME,
      rpID: this.options.rp.id,
      userID: new TextEncoder().encode(user.id),
      userName: user.email,
      userDisplayName: `${user.givenName} ${user.familyName}`.trim() || user.email,
      challenge: newChallenge(),
      timeout: PASSKEY_CHALLENGE_TTL_MS,
      attestationType: 'none',
      // The same authenticator twice would be one method counted as two.
      excludeCredentials: existing.map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports,
      })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    });
    await keepChallenge(
      this.storage.webauthnChallenges,
      options.challenge,
      'registration',
      user.id,
      binding,
      this.options.now(),
    );
    return options as unknown as WebAuthnOptionsJson;
  }

  /**
   * The challenge used up, the attestation verified (origin, RP ID, user verification); `commit` stores the
   * credential under a default name, refusing one registered already (here or to another account) and the cap.
   */
  async register(actor: Actor, answer: PasskeyAnswer, binding: string): Promise<PasskeyRegistration> {
    const { user } = actor;
    const { rp, now } = this.options;
    const { challenge } = await takeChallenge(
      this.storage.webauthnChallenges,
      answer,
      'registration',
      { binding, userId: user.id },
      now(),
    );
    let verification;
    try {
      verification = await verifyRegistrationResponse({
        response: answer as unknown as RegistrationResponseJSON,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        requireUserVerification: true,
      });
    } catch (error) {
      throw verificationRefusal(error);
    }
    if (!verification.verified) throw refused(PASSKEY_ANSWER_ERROR);
    const info = verification.registrationInfo;
    if (!info.userVerified) throw refused(PASSKEY_USER_VERIFICATION_ERROR);
    const record = {
      id: `pk${randomBytes(12).toString('base64url')}`,
      userId: user.id,
      credentialId: info.credential.id,
      publicKey: Buffer.from(info.credential.publicKey).toString('base64url'),
      counter: info.credential.counter,
      // The browser's hints, sent back in later options: only WebAuthn's names are kept.
      transports: [...new Set(info.credential.transports ?? [])].filter((t) => TRANSPORTS.has(t)),
      aaguid: info.aaguid,
      backedUp: info.credentialBackedUp,
      deviceType: info.credentialDeviceType,
      name: defaultPasskeyName(info.aaguid, actor.userAgent),
      createdAt: now(),
    };
    return {
      name: record.name,
      commit: async (tx) => {
        if ((await tx.passkeys.list(user.id)).length >= PASSKEYS_MAX) {
          throw refusal(API_ERRORS.factorState, PASSKEYS_MAX_ERROR(PASSKEYS_MAX));
        }
        // Checked under the write lock first; the unique credential id is the backstop.
        if (await tx.passkeys.byCredentialId(record.credentialId))
          throw refused(PASSKEY_ALREADY_REGISTERED_ERROR);
        if (!(await tx.passkeys.insert(record))) throw refused(PASSKEY_ALREADY_REGISTERED_ERROR);
        return passkeyOf((await tx.passkeys.get(user.id, record.id)) as PasskeyRecord);
      },
    };
  }

  async rename(userId: string, id: string, name: string): Promise<Passkey> {
    // The name is shown on the page and quoted in the holder's notices: no line breaks, controls or invisible marks.
    if (/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(name)) {
      throw refusal(API_ERRORS.invalidRequest, PASSKEY_NAME_CHARACTERS_ERROR);
    }
    if (!(await this.storage.passkeys.rename(userId, id, name))) {
      throw refusal(API_ERRORS.notFound, PASSKEY_NOT_FOUND_ERROR);
    }
    const record = await this.storage.passkeys.get(userId, id);
    if (!record) throw refusal(API_ERRORS.notFound, PASSKEY_NOT_FOUND_ERROR);
    return passkeyOf(record);
  }

  /** In `tx`: the delete, then the service's rule, so two sessions removing the last two cannot both pass. */
  async remove(
    userId: string,
    id: string,
    tx: Storage | undefined,
    beforeCommit: (removal: PasskeyRemoval) => Promise<void>,
  ): Promise<PasskeyRemoval | undefined> {
    const within = tx ?? this.storage;
    const passkey = await within.passkeys.get(userId, id);
    if (!passkey || !(await within.passkeys.remove(userId, id))) return undefined;
    // A blocked (cloned) passkey counted for nothing: removing it never leaves the account without a method.
    const removal = { name: passkey.name, counted: passkey.clonedAt === null };
    await beforeCommit(removal);
    return removal;
  }

  async authenticationOptions(user: User | null, binding: string): Promise<WebAuthnOptionsJson> {
    let allowCredentials: { id: string; transports: string[] }[] | undefined;
    if (user) {
      const usable = (await this.storage.passkeys.list(user.id)).filter(
        (passkey) => passkey.clonedAt === null,
      );
      if (usable.length === 0) throw refusal(API_ERRORS.factorState, NO_PASSKEY_ERROR);
      allowCredentials = usable.map((passkey) => ({
        id: passkey.credentialId,
        transports: passkey.transports,
      }));
    }
    const options = await generateAuthenticationOptions({
      rpID: this.options.rp.id,
      ...(allowCredentials ? { allowCredentials } : {}),
      challenge: newChallenge(),
      timeout: PASSKEY_CHALLENGE_TTL_MS,
      userVerification: 'required',
    });
    await keepChallenge(
      this.storage.webauthnChallenges,
      options.challenge,
      'authentication',
      user?.id ?? null,
      binding,
      this.options.now(),
    );
    return options as unknown as WebAuthnOptionsJson;
  }

  /** The challenge taken, the answer verified: the passkey and the counter to record. */
  async verifyAuthentication(
    answer: PasskeyAnswer,
    binding: string,
    userId: string | null,
    userAgent?: string | undefined,
  ): Promise<VerifiedAssertion> {
    const taken = await takeChallenge(
      this.storage.webauthnChallenges,
      answer,
      'authentication',
      { binding, ...(userId === null ? {} : { userId }) },
      this.options.now(),
    );
    return verifyPasskeyAssertion(
      this.assertions,
      answer,
      taken.challenge,
      userId ?? taken.userId,
      userAgent,
    );
  }

  async verifyAssertion(
    answer: PasskeyAnswer,
    binding: string,
    userId: string | null,
    userAgent: string | undefined,
  ): Promise<PasskeyAssertion> {
    const { passkey, newCounter } = await this.verifyAuthentication(answer, binding, userId, userAgent);
    return {
      userId: passkey.userId,
      // Compare-and-set: of two racing uses of one assertion, only one counts.
      commit: (tx) => tx.passkeys.recordUse(passkey.id, passkey.counter, newCounter, this.options.now()),
    };
  }
}
