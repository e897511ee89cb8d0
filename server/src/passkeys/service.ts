/**
 * Passkeys (WebAuthn credentials) as 2-step methods of the embedded backend: the list, registration (under the
 * factors' set-up guard), rename, removal (under step-up and the last-method rule), and step-up with a passkey
 * (the same grant as a code's, under the wrong-code throttle). Every change ends the account's other sessions and
 * mails the holder, as a factor's change does (FactorLifecycle.recordMethodChange). The server decides everything:
 * the challenge, the origin, the RP ID, user verification, the credential's owner and its counter. Okta mode: not
 * available (409 passkeys_unavailable) until the portal speaks to Okta's WebAuthn factor.
 */
import { randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyRegistrationResponse,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import {
  API_ERRORS,
  PASSKEYS_MAX,
  type Passkey,
  type PasskeyAuthenticationOptions,
  type PasskeyList,
  type PasskeyRegistrationOptions,
} from 'shared-auth/contract';
import type { PasskeyRelyingParty } from '../config/passkey-rp.js';
import type { Actor } from '../factors/actor.js';
import type { CodeAttempts } from '../factors/code-attempts.js';
import type { FactorLifecycle } from '../factors/lifecycle.js';
import type { StepUpService } from '../factors/step-up.js';
import { HttpError, refusal } from '../http/errors.js';
import type { IdentityFactors } from '../identity/factors.js';
import type { Notifier } from '../notifications/types.js';
import type { Storage } from '../storage/index.js';
import type { PasskeyRecord } from '../storage/passkeys.js';
import type { User } from '../storage/users.js';
import { tooManyRequests, describeWait } from '../throttles/throttle.js';
import { verifyPasskeyAssertion, type AssertionDeps, type VerifiedAssertion } from './assertion.js';
import {
  challengeBinding,
  keepChallenge,
  newChallenge,
  PASSKEY_CHALLENGE_TTL_MS,
  takeChallenge,
} from './challenges.js';
import { defaultPasskeyName } from './naming.js';
import {
  LAST_METHOD_ERROR,
  NO_PASSKEY_ERROR,
  PASSKEY_ALREADY_REGISTERED_ERROR,
  PASSKEY_ANSWER_ERROR,
  PASSKEY_NAME_CHARACTERS_ERROR,
  PASSKEY_NOT_FOUND_ERROR,
  PASSKEY_USER_VERIFICATION_ERROR,
  PASSKEYS_MAX_ERROR,
  PASSKEYS_UNAVAILABLE_ERROR,
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
const RP_NAME = 'My Profile';

export interface PasskeyServiceOptions {
  /** Whether the identity backend lets the portal hold passkeys (embedded: yes; Okta: not yet). */
  available: boolean;
  rp: PasskeyRelyingParty;
  storage: Storage;
  /** The factors, for "has an active method" inside a removal's transaction. */
  identity: IdentityFactors;
  stepUp: StepUpService;
  factors: FactorLifecycle;
  attempts: CodeAttempts;
  notifier: Notifier;
  now: () => number;
}

/** A WebAuthn answer as the contract's bodies carry it (outer shape checked; the rest is verified here). */
type Answer = { id: string } & Record<string, unknown>;

const refused = (message: string) => refusal(API_ERRORS.passkeyRefused, message);

function passkeyOf(record: PasskeyRecord): Passkey {
  return {
    id: record.id,
    name: record.name,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUsedAt: record.lastUsedAt === null ? null : new Date(record.lastUsedAt).toISOString(),
    synced: record.backedUp,
  };
}

export class PasskeyService {
  private readonly options: PasskeyServiceOptions;
  private readonly storage: Storage;
  private readonly now: () => number;

  constructor(options: PasskeyServiceOptions) {
    this.options = options;
    this.storage = options.storage;
    this.now = options.now;
  }

  get available(): boolean {
    return this.options.available;
  }

  private requireAvailable(): void {
    if (!this.available) throw refusal(API_ERRORS.passkeysUnavailable, PASSKEYS_UNAVAILABLE_ERROR);
  }

  /** The sign-in session's binding of a challenge (its grant chain, hashed). */
  private static bindingOf(actor: Actor): string {
    return challengeBinding('session', actor.grantKey);
  }

  /** The verification of assertions, shared with the sign-in's passkey step. */
  get assertions(): AssertionDeps {
    const { storage, rp, notifier, now } = this.options;
    return {
      storage,
      rp,
      now,
      onCloned: async (passkey, tx, userAgent) => {
        const user = await tx.users.findById(passkey.userId);
        if (user) {
          await notifier.queue(
            user,
            { type: 'passkey-cloned', name: passkey.name },
            { userAgent, at: now() },
            tx.outbox,
          );
        }
      },
    };
  }

  // ---- Reading --------------------------------------------------------------------------------------------

  /** The Security page's Passkeys section (GET /api/passkeys/:sub). */
  async list(userId: string): Promise<PasskeyList> {
    if (!this.available) return { available: false, canRename: false, enrolment: 'ceremony', passkeys: [] };
    const passkeys = await this.storage.passkeys.list(userId);
    return { available: true, canRename: true, enrolment: 'ceremony', passkeys: passkeys.map(passkeyOf) };
  }

  // ---- Registration ---------------------------------------------------------------------------------------

  /**
   * Adding a passkey is setting up a 2-step method: this session's step-up grant when the holder has an active
   * method, fresh proof ("Confirm it's you") when it would be the first (StepUpService, as for a factor).
   */
  private async requireSetUpProof(actor: Actor): Promise<void> {
    await this.options.stepUp.requireStepUp(actor.user.id, actor.grantKey);
    await this.options.stepUp.requireFreshProof(actor);
  }

  /** The options of navigator.credentials.create(): the challenge kept for this session, 5 minutes. */
  async registrationOptions(actor: Actor): Promise<PasskeyRegistrationOptions> {
    // Authorization first, as every security change: the same refusal whichever backend holds the account.
    await this.requireSetUpProof(actor);
    this.requireAvailable();
    const { user } = actor;
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
      PasskeyService.bindingOf(actor),
      this.now(),
    );
    return { options: options as unknown as PasskeyRegistrationOptions['options'] };
  }

  /**
   * The browser's answer to the registration options: the challenge used up, the attestation verified (origin,
   * RP ID, user verification), the credential stored under a default name; a credential registered already (here
   * or to another account) is refused. The session gets a step-up grant (the new passkey proved it is the holder),
   * the other sessions end and the holder is told.
   */
  async registrationVerify(actor: Actor, answer: Answer): Promise<Passkey> {
    await this.requireSetUpProof(actor);
    this.requireAvailable();
    const { user } = actor;
    const { rp } = this.options;
    const { challenge } = await takeChallenge(
      this.storage.webauthnChallenges,
      answer,
      'registration',
      { binding: PasskeyService.bindingOf(actor), userId: user.id },
      this.now(),
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
      const message = error instanceof Error ? error.message : '';
      throw refused(
        /user verification|could not be verified/i.test(message)
          ? PASSKEY_USER_VERIFICATION_ERROR
          : PASSKEY_ANSWER_ERROR,
      );
    }
    if (!verification.verified) throw refused(PASSKEY_ANSWER_ERROR);
    const info = verification.registrationInfo;
    if (!info.userVerified) throw refused(PASSKEY_USER_VERIFICATION_ERROR);
    const now = this.now();
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
      createdAt: now,
    };
    const stored = await this.storage.transaction(async (tx) => {
      if ((await tx.passkeys.list(user.id)).length >= PASSKEYS_MAX) {
        throw refusal(API_ERRORS.factorState, PASSKEYS_MAX_ERROR(PASSKEYS_MAX));
      }
      // Checked under the write lock first; the unique credential id is the backstop.
      if (await tx.passkeys.byCredentialId(record.credentialId))
        throw refused(PASSKEY_ALREADY_REGISTERED_ERROR);
      if (!(await tx.passkeys.insert(record))) throw refused(PASSKEY_ALREADY_REGISTERED_ERROR);
      await this.options.stepUp.grant(user.id, actor.grantKey, 'passkey', tx.grants);
      await this.options.factors.recordMethodChange(
        tx,
        actor,
        { type: 'passkey-added', name: record.name },
        false,
      );
      return (await tx.passkeys.get(user.id, record.id)) as PasskeyRecord;
    });
    await this.options.factors.afterMethodChange(actor);
    return passkeyOf(stored);
  }

  // ---- Rename and removal ---------------------------------------------------------------------------------

  async rename(userId: string, id: string, name: string): Promise<Passkey> {
    this.requireAvailable();
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

  /**
   * Removes one of the holder's passkeys (the caller checked the step-up), unless it is the last active 2-step
   * method (409 last_factor, as turning off the only factor). Checked after the delete, in its transaction, so
   * two sessions removing the last two methods at once cannot both pass.
   */
  async remove(actor: Actor, id: string): Promise<PasskeyList> {
    this.requireAvailable();
    const { user } = actor;
    const { identity, stepUp, factors } = this.options;
    await this.storage.transaction(async (tx) => {
      const passkey = await tx.passkeys.get(user.id, id);
      if (!passkey || !(await tx.passkeys.remove(user.id, id))) {
        throw refusal(API_ERRORS.notFound, PASSKEY_NOT_FOUND_ERROR);
      }
      const within = identity.inTransaction ? identity.inTransaction(tx) : identity;
      // A blocked (cloned) passkey counted for nothing: removing it never leaves the account without a method.
      if (passkey.clonedAt === null && !(await stepUp.hasActiveFactor(user.id, within, tx))) {
        throw refusal(API_ERRORS.lastFactor, LAST_METHOD_ERROR);
      }
      await factors.recordMethodChange(tx, actor, { type: 'passkey-removed', name: passkey.name }, true);
    });
    await factors.afterMethodChange(actor);
    return this.list(user.id);
  }

  // ---- Step-up --------------------------------------------------------------------------------------------

  /**
   * The options of navigator.credentials.get(), the challenge bound to `binding`: for `user`'s usable passkeys
   * (step-up, or a sign-in after the password), or, with `user` null, for any discoverable passkey (a sign-in that
   * knows no user yet: the answer's userHandle names it). A user locked by the wrong-code throttle gets 429.
   */
  async authenticationOptions(user: User | null, binding: string): Promise<PasskeyAuthenticationOptions> {
    this.requireAvailable();
    let allowCredentials: { id: string; transports: string[] }[] | undefined;
    if (user) {
      const wait = await this.options.attempts.wrongCodes.retryAfterMs(user.id);
      if (wait > 0) {
        throw tooManyRequests(
          `Too many failed verifications. For your security, try again in ${describeWait(wait)}.`,
          wait,
        );
      }
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
      this.now(),
    );
    return { options: options as unknown as PasskeyAuthenticationOptions['options'] };
  }

  stepUpOptions(actor: Actor): Promise<PasskeyAuthenticationOptions> {
    return this.authenticationOptions(actor.user, PasskeyService.bindingOf(actor));
  }

  /**
   * Takes the answer's challenge (bound to `binding`, issued to `userId` or to nobody) and verifies the answer:
   * what the step-up and the sign-in's passkey step share. The caller records the use (recordUse) with its own
   * writes.
   */
  async verifyAuthentication(
    answer: Answer,
    binding: string,
    userId: string | null,
    userAgent?: string | undefined,
  ): Promise<VerifiedAssertion> {
    this.requireAvailable();
    const taken = await takeChallenge(
      this.storage.webauthnChallenges,
      answer,
      'authentication',
      { binding, ...(userId === null ? {} : { userId }) },
      this.now(),
    );
    return verifyPasskeyAssertion(
      this.assertions,
      answer,
      taken.challenge,
      userId ?? taken.userId,
      userAgent,
    );
  }

  /**
   * Step-up with a passkey: counted under the wrong-code throttle before anything is checked (a storage error
   * there refuses), verified, the counter and last use recorded (compare-and-set) with this session's 5-minute
   * grant in one transaction. Returns the grant's end (ms).
   */
  async stepUpVerify(actor: Actor, answer: Answer): Promise<number> {
    this.requireAvailable();
    const { user } = actor;
    const { attempts, stepUp } = this.options;
    const attempt = await attempts.reserve(user.id);
    try {
      const { passkey, newCounter } = await this.verifyAuthentication(
        answer,
        PasskeyService.bindingOf(actor),
        user.id,
        actor.userAgent,
      );
      return await this.storage.transaction(async (tx) => {
        if (!(await tx.passkeys.recordUse(passkey.id, passkey.counter, newCounter, this.now()))) {
          throw refused(PASSKEY_ANSWER_ERROR);
        }
        await attempts.accepted(user.id, tx);
        return stepUp.grant(user.id, actor.grantKey, 'passkey', tx.grants);
      });
    } catch (error) {
      if (error instanceof HttpError && error.code === API_ERRORS.passkeyRefused.code) {
        await attempts.stayCounted(user, actor.userAgent, attempt);
      }
      throw error;
    }
  }

  /**
   * A sign-in with a passkey (the provider's pages, challenge bound to the interaction): after the password, for
   * `user` (counted under the wrong-code throttle before anything is checked, as the step-up), or with `user` null,
   * passwordless (the answer's userHandle names the holder). The counter and last use are recorded (compare-and-set).
   * Returns the holder's id.
   */
  async signInVerify(
    answer: Answer,
    binding: string,
    user: User | null,
    userAgent?: string | undefined,
  ): Promise<string> {
    this.requireAvailable();
    const { attempts } = this.options;
    const attempt = user ? await attempts.reserve(user.id) : undefined;
    try {
      const { passkey, newCounter } = await this.verifyAuthentication(
        answer,
        binding,
        user?.id ?? null,
        userAgent,
      );
      await this.storage.transaction(async (tx) => {
        if (!(await tx.passkeys.recordUse(passkey.id, passkey.counter, newCounter, this.now()))) {
          throw refused(PASSKEY_ANSWER_ERROR);
        }
        if (user) await attempts.accepted(user.id, tx);
      });
      return passkey.userId;
    } catch (error) {
      if (user && attempt && error instanceof HttpError && error.code === API_ERRORS.passkeyRefused.code) {
        await attempts.stayCounted(user, userAgent, attempt);
      }
      throw error;
    }
  }

  /** Housekeeping: challenges that expired unused. */
  prune(): Promise<number> {
    return this.storage.webauthnChallenges.prune(this.now());
  }
}
