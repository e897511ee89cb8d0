/**
 * Passkeys (WebAuthn credentials) as 2-step methods: the list, registration (under the factors' set-up guard),
 * rename, removal (under step-up and the last-method rule), and step-up with a passkey (the same grant as a code's,
 * under the wrong-code throttle). Every change ends the account's other sessions and mails the holder, as a
 * factor's change does (FactorLifecycle.recordMethodChange). Where the passkeys live and who verifies their
 * ceremonies is the backend's (backend.ts): the portal's storage (embedded-backend.ts) or the Okta org's webauthn
 * factors (okta-backend.ts); the rules here are the same for both.
 */
import {
  API_ERROR_CODES,
  API_ERRORS,
  STEP_UP_TTL_MS,
  type ChallengeResponse,
  type Passkey,
  type PasskeyAuthenticationOptions,
  type PasskeyList,
  type PasskeyRegistrationOptions,
} from 'shared-auth/contract';
import type { Actor } from '../factors/actor.js';
import type { CodeAttempts } from '../factors/code-attempts.js';
import type { FactorLifecycle } from '../factors/lifecycle.js';
import { forgetPreferredMethod } from '../factors/preferred-method.js';
import { stepUpRequired, type StepUpService } from '../factors/step-up.js';
import { HttpError, refusal } from '../http/errors.js';
import type { IdentityFactors } from '../identity/factors.js';
import type { Storage } from '../storage/index.js';
import type { User } from '../storage/users.js';
import { tooManyRequests, describeWait } from '../throttles/throttle.js';
import type { AssertionDeps, VerifiedAssertion } from './assertion.js';
import type { PasskeyAnswer, PasskeyBackend } from './backend.js';
import { challengeBinding } from './challenges.js';
import type { EmbeddedPasskeyBackend } from './embedded-backend.js';
import {
  LAST_METHOD_ERROR,
  PASSKEY_ANSWER_ERROR,
  PASSKEY_NOT_FOUND_ERROR,
  PASSKEY_SIGN_IN_AGAIN_ERROR,
  PASSKEYS_UNAVAILABLE_ERROR,
} from './texts.js';

export interface PasskeyServiceOptions {
  /** Where the passkeys live and who verifies their ceremonies (embedded storage, or the Okta org). */
  backend: PasskeyBackend;
  storage: Storage;
  /** The factors, for "has an active method" inside a removal's transaction. */
  identity: IdentityFactors;
  stepUp: StepUpService;
  factors: FactorLifecycle;
  attempts: CodeAttempts;
  now: () => number;
}

const refused = (message: string) => refusal(API_ERRORS.passkeyRefused, message);

export class PasskeyService {
  private readonly options: PasskeyServiceOptions;
  private readonly backend: PasskeyBackend;
  private readonly storage: Storage;
  private readonly now: () => number;

  constructor(options: PasskeyServiceOptions) {
    this.options = options;
    this.backend = options.backend;
    this.storage = options.storage;
    this.now = options.now;
  }

  /**
   * Whether the portal's own sign-in pages (the embedded provider: the passkey sign-in, the reset link's second
   * step) use passkeys: only the embedded backend's, whose answers the portal verifies itself. Okta mode's passkeys
   * are the org's sign-in's; the Security page and the step-up use them there too (list: available).
   */
  get available(): boolean {
    return this.backend.kind === 'embedded';
  }

  /** The embedded backend, for what only it does (the sign-in's discoverable passkeys); 409 otherwise. */
  private embedded(): EmbeddedPasskeyBackend {
    if (this.backend.kind !== 'embedded') {
      throw refusal(API_ERRORS.passkeysUnavailable, PASSKEYS_UNAVAILABLE_ERROR);
    }
    return this.backend as EmbeddedPasskeyBackend;
  }

  /** The sign-in session's binding of a challenge (its grant chain, hashed). */
  private static bindingOf(actor: Actor): string {
    return challengeBinding('session', actor.grantKey);
  }

  /** The verification of assertions, shared with the sign-in's passkey step (embedded). */
  get assertions(): AssertionDeps {
    return this.embedded().assertions;
  }

  /**
   * Whether the account keeps an active 2-step method: a factor or a usable passkey, each counted once. The
   * factors' rules (StepUpService) count the passkeys of the portal's storage; a backend that holds them elsewhere
   * (Okta) adds its own, less `excluding` (the one about to be removed, still listed there).
   */
  async hasActiveMethod(userId: string, within?: Storage, excluding = 0): Promise<boolean> {
    const { identity, stepUp } = this.options;
    const factors = within && identity.inTransaction ? identity.inTransaction(within) : identity;
    if (await stepUp.hasActiveFactor(userId, factors, within ?? this.storage)) return true;
    if (this.backend.inStorage) return false;
    return (await this.backend.countUsable(userId)) - excluding > 0;
  }

  /**
   * The step-up a passkey change needs: StepUpService's, plus the passkeys it does not see (Okta's): a holder whose
   * only methods are those must verify too. With a grant from a passkey step-up when the ceremony runs here; when it
   * cannot (Okta's hosted enrolment), the portal cannot check them, so a sign-in within the step-up window (Okta's
   * own, which asks for them) is the proof, as for a factor the portal does not manage.
   */
  async requireStepUp(actor: Actor): Promise<void> {
    const { stepUp } = this.options;
    await stepUp.requireStepUp(actor.user.id, actor.grantKey);
    if (this.backend.inStorage) return;
    if ((await stepUp.grantExpiry(actor.user.id, actor.grantKey)) !== undefined) return;
    if ((await this.backend.countUsable(actor.user.id)) === 0) return;
    if (this.backend.stepUp) throw stepUpRequired();
    const now = this.now();
    if (actor.signedInAt !== undefined && now - actor.signedInAt <= STEP_UP_TTL_MS) return;
    throw new HttpError(403, PASSKEY_SIGN_IN_AGAIN_ERROR, {}, API_ERROR_CODES.stepUpRequired);
  }

  /**
   * The step-up challenge (StepUpService.challenge) with the passkeys it does not see: Okta's, offered when the
   * ceremony can run on the portal's pages (otherwise they are the org's sign-in's to check, as its other factors).
   */
  async challenge(user: User, sessionId: string): Promise<ChallengeResponse> {
    const challenge = await this.methodsChallenge(user, sessionId);
    // The holder's default (issue 22) among the methods offered here, Okta's passkeys included.
    const preferredMethod = await this.options.stepUp.preferredMethod(user.id, challenge.activeFactorsData);
    return preferredMethod ? { ...challenge, preferredMethod } : challenge;
  }

  private async methodsChallenge(user: User, sessionId: string): Promise<ChallengeResponse> {
    const { stepUp } = this.options;
    const challenge = await stepUp.challenge(user, sessionId);
    if (this.backend.inStorage || !this.backend.stepUp) return challenge;
    const count = await this.backend.countUsable(user.id);
    if (count === 0) return challenge;
    const granted = (await stepUp.grantExpiry(user.id, sessionId)) !== undefined;
    return {
      ...challenge,
      challengeUser: !granted,
      activeFactorsData: { ...challenge.activeFactorsData, passkey: { count } },
    };
  }

  // ---- Reading --------------------------------------------------------------------------------------------

  /** The Security page's Passkeys section (GET /api/passkeys/:sub). */
  async list(userId: string): Promise<PasskeyList> {
    const [enrolment, passkeys] = await Promise.all([this.backend.enrolment(), this.backend.list(userId)]);
    return { available: true, canRename: this.backend.canRename, ...enrolment, passkeys };
  }

  // ---- Registration ---------------------------------------------------------------------------------------

  /**
   * Adding a passkey is setting up a 2-step method: this session's step-up grant when the holder has an active
   * method, fresh proof ("Confirm it's you") when it would be the first (StepUpService, as for a factor).
   */
  private async requireSetUpProof(actor: Actor): Promise<void> {
    await this.requireStepUp(actor);
    // An Okta passkey is an active method StepUpService does not see: the grant just checked is the proof.
    if (!this.backend.inStorage && (await this.backend.countUsable(actor.user.id)) > 0) return;
    await this.options.stepUp.requireFreshProof(actor);
  }

  /** The options of navigator.credentials.create(): the challenge kept for this session, 5 minutes. */
  async registrationOptions(actor: Actor): Promise<PasskeyRegistrationOptions> {
    // Authorization first, as every security change: the same refusal whichever backend holds the account.
    await this.requireSetUpProof(actor);
    const options = await this.backend.registrationOptions(actor.user, PasskeyService.bindingOf(actor));
    return { options };
  }

  /**
   * The browser's answer to the registration options, checked by the backend (the challenge first). The session
   * gets a step-up grant (the new passkey proved it is the holder), the other sessions end and the holder is told.
   */
  async registrationVerify(actor: Actor, answer: PasskeyAnswer): Promise<Passkey> {
    await this.requireSetUpProof(actor);
    const { user } = actor;
    const registration = await this.backend.register(actor, answer, PasskeyService.bindingOf(actor));
    const stored = await this.storage.transaction(async (tx) => {
      const passkey = await registration.commit(tx);
      await this.options.stepUp.grant(user.id, actor.grantKey, 'passkey', tx.grants);
      await this.options.factors.recordMethodChange(
        tx,
        actor,
        { type: 'passkey-added', name: registration.name },
        false,
        { method: 'passkey', instance: passkey.id },
      );
      return passkey;
    });
    await this.options.factors.afterMethodChange(actor);
    return stored;
  }

  // ---- Rename and removal ---------------------------------------------------------------------------------

  /** Renames one of the holder's passkeys; 409 passkeys_unavailable where the backend keeps its own names (Okta). */
  rename(userId: string, id: string, name: string): Promise<Passkey> {
    return this.backend.rename(userId, id, name);
  }

  /**
   * Removes one of the holder's passkeys (under step-up), unless it is the last active 2-step method (409
   * last_factor, as turning off the only factor). Embedded: checked after the delete, in its transaction, so two
   * sessions removing the last two methods at once cannot both pass. Okta: checked just before the delete (no
   * transaction spans a call to Okta).
   */
  async remove(actor: Actor, id: string): Promise<PasskeyList> {
    await this.requireStepUp(actor);
    const { user } = actor;
    const { factors } = this.options;
    const lastMethodRule = (within: Storage | undefined) => async (removal: { counted: boolean }) => {
      if (!removal.counted) return;
      // Okta's list still holds the passkey being removed: it does not count as another method.
      const excluding = this.backend.inStorage ? 0 : 1;
      if (!(await this.hasActiveMethod(user.id, within, excluding))) {
        throw refusal(API_ERRORS.lastFactor, LAST_METHOD_ERROR);
      }
    };
    const notFound = () => refusal(API_ERRORS.notFound, PASSKEY_NOT_FOUND_ERROR);
    if (this.backend.inStorage) {
      await this.storage.transaction(async (tx) => {
        const removal = await this.backend.remove(user.id, id, tx, lastMethodRule(tx));
        if (!removal) throw notFound();
        await factors.recordMethodChange(tx, actor, { type: 'passkey-removed', name: removal.name }, true);
        // The last usable passkey gone: passkeys are no default any more (issue 22).
        if ((await this.backend.countUsable(user.id, tx)) === 0)
          await forgetPreferredMethod(tx, user.id, 'passkey');
      });
    } else {
      const removal = await this.backend.remove(user.id, id, undefined, lastMethodRule(undefined));
      if (!removal) throw notFound();
      const noneLeft = (await this.backend.countUsable(user.id)) === 0;
      await this.storage.transaction(async (tx) => {
        await factors.recordMethodChange(tx, actor, { type: 'passkey-removed', name: removal.name }, true);
        if (noneLeft) await forgetPreferredMethod(tx, user.id, 'passkey');
      });
    }
    await factors.afterMethodChange(actor);
    return this.list(user.id);
  }

  // ---- Step-up --------------------------------------------------------------------------------------------

  /** 429 while the wrong-code throttle holds the user (before a ceremony is even offered). */
  private async refuseThrottled(user: User): Promise<void> {
    const wait = await this.options.attempts.wrongCodes.retryAfterMs(user.id);
    if (wait > 0) {
      throw tooManyRequests(
        `Too many failed verifications. For your security, try again in ${describeWait(wait)}.`,
        wait,
      );
    }
  }

  /**
   * The options of navigator.credentials.get(), the challenge bound to `binding`: for `user`'s usable passkeys
   * (step-up, or a sign-in after the password), or, with `user` null, for any discoverable passkey (a sign-in that
   * knows no user yet: the answer's userHandle names it). A user locked by the wrong-code throttle gets 429.
   */
  async authenticationOptions(user: User | null, binding: string): Promise<PasskeyAuthenticationOptions> {
    if (user) await this.refuseThrottled(user);
    return { options: await this.backend.authenticationOptions(user, binding) };
  }

  stepUpOptions(actor: Actor): Promise<PasskeyAuthenticationOptions> {
    return this.authenticationOptions(actor.user, PasskeyService.bindingOf(actor));
  }

  /**
   * Embedded: takes the answer's challenge (bound to `binding`, issued to `userId` or to nobody) and verifies the
   * answer; the caller records the use (recordUse) with its own writes.
   */
  verifyAuthentication(
    answer: PasskeyAnswer,
    binding: string,
    userId: string | null,
    userAgent?: string | undefined,
  ): Promise<VerifiedAssertion> {
    return this.embedded().verifyAuthentication(answer, binding, userId, userAgent);
  }

  /**
   * Step-up with a passkey: counted under the wrong-code throttle before anything is checked (a storage error
   * there refuses), verified by the backend, its use recorded (embedded: compare-and-set of the counter) with this
   * session's 5-minute grant in one transaction. Returns the grant's end (ms).
   */
  async stepUpVerify(actor: Actor, answer: PasskeyAnswer): Promise<number> {
    const { user } = actor;
    const { attempts, stepUp } = this.options;
    const attempt = await attempts.reserve(user.id);
    try {
      const assertion = await this.backend.verifyAssertion(
        answer,
        PasskeyService.bindingOf(actor),
        user.id,
        actor.userAgent,
      );
      return await this.storage.transaction(async (tx) => {
        if (!(await assertion.commit(tx))) throw refused(PASSKEY_ANSWER_ERROR);
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
   * A sign-in with a passkey (the embedded provider's pages, challenge bound to the interaction): after the
   * password, for `user` (counted under the wrong-code throttle before anything is checked, as the step-up), or
   * with `user` null, passwordless (the answer's userHandle names the holder). The counter and last use are
   * recorded (compare-and-set). Returns the holder's id.
   */
  async signInVerify(
    answer: PasskeyAnswer,
    binding: string,
    user: User | null,
    userAgent?: string | undefined,
  ): Promise<string> {
    const backend = this.embedded();
    const { attempts } = this.options;
    const attempt = user ? await attempts.reserve(user.id) : undefined;
    try {
      const assertion = await backend.verifyAssertion(answer, binding, user?.id ?? null, userAgent);
      await this.storage.transaction(async (tx) => {
        if (!(await assertion.commit(tx))) throw refused(PASSKEY_ANSWER_ERROR);
        if (user) await attempts.accepted(user.id, tx);
      });
      return assertion.userId;
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
