/**
 * The step-up: whether a session must verify with a 2-step factor, the codes that verify it, and the grants a
 * verification earns (5 minutes). The password change, the sign-in's second step and /api/stepup use it; the
 * factors' set-up (lifecycle.ts) asks it for fresh proof and grants.
 */
import {
  API_ERROR_CODES,
  API_ERRORS,
  FACTOR_LABELS,
  INVALID_CODE_ERROR,
  maskEmail,
  REAUTHENTICATION_REQUIRED_ERROR,
  STEP_UP_REQUIRED_ERROR,
  STEP_UP_TTL_MS,
  type ActiveFactorsData,
  type ChallengeResponse,
  type FactorName,
  type PreferredMethod,
  type ReauthenticationProof,
} from 'shared-auth/contract';
import { HttpError, refusal } from '../http/errors.js';
import type { IdentityFactor, IdentityFactors } from '../identity/factors.js';
import { kindOf } from '../identity/kinds/registry.js';
import type { IdentityPasswords } from '../identity/passwords.js';
import type { GrantProof, GrantStore } from '../storage/grants.js';
import type { Storage } from '../storage/index.js';
import type { User } from '../storage/users.js';
import type { Actor } from './actor.js';
import type { CodeAttempts } from './code-attempts.js';
import { preferredAmong } from './preferred-method.js';
import type { RecoveryCodes } from './recovery-codes.js';

export interface StepUpOptions {
  /** Where the factors and their codes are checked (embedded or Okta), and whether it checks passwords. */
  identity: IdentityFactors & Pick<IdentityPasswords, 'canCheckPasswords'>;
  /** The step-up grants, and the transactions the factors' changes run in. */
  storage: Storage;
  attempts: CodeAttempts;
  /** The account's recovery codes: a step-up (and the sign-in's second step) may use one instead of a code. */
  recoveryCodes: RecoveryCodes;
  now: () => number;
}

/** The answer to a step-up-protected call without a valid grant (the page then runs the step-up screens). */
export function stepUpRequired(): HttpError {
  return new HttpError(
    403,
    `${STEP_UP_REQUIRED_ERROR}: verify with one of your 2-step factors first (a verification lasts 5 minutes).`,
    {},
    API_ERROR_CODES.stepUpRequired,
  );
}

export const activeOf = (factors: IdentityFactor[]) =>
  factors.filter((f) => f.status === 'ACTIVE').map((f) => f.type);

export const findFactor = (factors: IdentityFactor[], type: FactorName) =>
  factors.find((f) => f.type === type);

/**
 * Step-up data (spec section 3): what each active factor's kind tells the page, keyed by factor type, and the
 * holder's usable passkeys counted (`passkey`, only when there are any).
 */
function methodsData(user: User, active: FactorName[], passkeys: number): ActiveFactorsData {
  const factors = Object.assign(
    {},
    ...active.map((type) => kindOf(type).describe(user)),
  ) as ActiveFactorsData;
  return passkeys > 0 ? { ...factors, passkey: { count: passkeys } } : factors;
}

/**
 * What the portal decides about the step-up, whichever identity backend holds the factors: the challenge, the
 * code checks under the wrong-code throttle, the grants, fresh proof before a first factor. Refusals are
 * HttpErrors with a message safe to show.
 */
export class StepUpService {
  private readonly identity: StepUpOptions['identity'];
  private readonly storage: Storage;
  private readonly grants: GrantStore;
  private readonly attempts: CodeAttempts;
  private readonly now: () => number;
  /** The account's recovery codes (the sign-in's second step reads them here). */
  readonly recoveryCodes: RecoveryCodes;

  constructor({ identity, storage, attempts, recoveryCodes, now }: StepUpOptions) {
    this.identity = identity;
    this.storage = storage;
    this.grants = storage.grants;
    this.attempts = attempts;
    this.recoveryCodes = recoveryCodes;
    this.now = now;
  }

  // ---- Reading --------------------------------------------------------------------------------------------

  async activeTypes(userId: string, identity: IdentityFactors = this.identity): Promise<FactorName[]> {
    return activeOf(await identity.listFactors(userId));
  }

  /**
   * Whether the account has an active 2-step method: an active factor, or a passkey that still works (passkeys are
   * methods of their own, kept in the portal's storage: `within` is the change's transaction when there is one).
   */
  async hasActiveFactor(
    userId: string,
    identity: IdentityFactors = this.identity,
    within: Storage = this.storage,
  ): Promise<boolean> {
    return (
      (await this.activeTypes(userId, identity)).length > 0 || (await within.passkeys.countUsable(userId)) > 0
    );
  }

  /**
   * Whether a sign-in asks for a second step: an active method, or a passkey blocked as a copy. A copied passkey
   * proves nothing any more, yet it must not turn 2-step verification off: whoever copied it may know the password
   * too. The holder gets back in with a recovery code, or by resetting the password through the mailbox, which
   * clears the blocked passkeys (password/reset.ts).
   */
  async requiresSecondStep(userId: string): Promise<boolean> {
    // Any passkey, usable or blocked, asks for it: one list, not a count of the usable ones and then the list.
    return (
      (await this.activeTypes(userId)).length > 0 || (await this.storage.passkeys.list(userId)).length > 0
    );
  }

  /** Step-up data (spec section 3): only active methods, keyed by factor type, and the passkeys counted. */
  async activeFactorsData(user: User): Promise<ActiveFactorsData> {
    return methodsData(
      user,
      await this.activeTypes(user.id),
      await this.storage.passkeys.countUsable(user.id),
    );
  }

  /**
   * The holder's default method (factors/preferred-method.ts) among the methods in `data` (the challenge's, or the
   * sign-in's), or undefined: the fixed order of `data` then.
   */
  async preferredMethod(userId: string, data: ActiveFactorsData): Promise<PreferredMethod | undefined> {
    return preferredAmong(await this.storage.preferredMethods.get(userId), data);
  }

  /**
   * The step-up challenge of this session: whether it must verify, and with which methods (the factors and the
   * passkeys); and the holder's unused recovery codes, when there are any (never among the methods).
   */
  async challenge(user: User, sessionId: string): Promise<ChallengeResponse> {
    // Four independent reads at once: on PostgreSQL each on a pooled connection of its own, so the call waits for
    // the slowest instead of the sum.
    const [active, passkeys, expiry, left] = await Promise.all([
      this.activeTypes(user.id),
      this.storage.passkeys.countUsable(user.id),
      this.grantExpiry(user.id, sessionId),
      this.recoveryCodes.left(user.id),
    ]);
    const granted = expiry !== undefined;
    return {
      challengeUser: (active.length > 0 || passkeys > 0) && !granted,
      activeFactorsData: methodsData(user, active, passkeys),
      ...(left > 0 ? { recoveryCodes: { left } } : {}),
    };
  }

  // ---- Grants ---------------------------------------------------------------------------------------------

  /** When the session's step-up ends (ms), or undefined when it has none that is still valid. */
  grantExpiry(userId: string, sessionId: string): Promise<number | undefined> {
    return this.grants.factorGrantExpiry(userId, sessionId, this.now());
  }

  /** Step-up is needed when the user has an active factor and this session has no valid grant. */
  async needsStepUp(userId: string, sessionId: string): Promise<boolean> {
    return (await this.hasActiveFactor(userId)) && (await this.grantExpiry(userId, sessionId)) === undefined;
  }

  async requireStepUp(userId: string, sessionId: string): Promise<void> {
    if (await this.needsStepUp(userId, sessionId)) throw stepUpRequired();
  }

  /**
   * The step-up a password change needs. With one of the portal's factors active: this session's grant
   * (requireStepUp). With only factors the portal does not manage (Okta mode: Okta Verify, SMS, a security key…),
   * which it cannot check: a sign-in within the step-up window (the org's sign-in, which asks for them), or a
   * grant; otherwise 403 step_up_required saying to sign in again (the page shows it: its challenge has no factor).
   */
  async requirePasswordChangeStepUp(actor: Actor): Promise<void> {
    const userId = actor.user.id;
    if (await this.hasActiveFactor(userId)) return this.requireStepUp(userId, actor.grantKey);
    if (!(await this.identity.hasUnmanagedActiveFactor?.(userId))) return;
    const now = this.now();
    if (actor.signedInAt !== undefined && now - actor.signedInAt <= STEP_UP_TTL_MS) return;
    if ((await this.grantExpiry(userId, actor.grantKey)) !== undefined) return;
    throw new HttpError(
      403,
      `${STEP_UP_REQUIRED_ERROR}: your 2-step verification is managed by your organization. Sign in again, then change your password within 5 minutes.`,
      {},
      API_ERROR_CODES.stepUpRequired,
    );
  }

  /** Grants the session 5 minutes of step-up (in `grants`: the change's transaction, when given). */
  async grant(
    userId: string,
    sessionId: string,
    proof: GrantProof,
    grants: GrantStore = this.grants,
  ): Promise<number> {
    const expiresAt = this.now() + STEP_UP_TTL_MS;
    await grants.put(userId, sessionId, proof, expiresAt);
    return expiresAt;
  }

  /**
   * Turning on the first factor is a sensitive change: whoever does it decides what the next sign-in asks for,
   * and the last-factor rule then keeps it. A stolen access token must not be enough, so it needs fresh proof:
   * the session signed in within the step-up window, or the password was entered again (reauthenticate).
   * With an active factor the step-up grant is that proof instead (requireStepUp).
   */
  async requireFreshProof(
    actor: Actor,
    within: Storage = this.storage,
    identity: IdentityFactors = this.identity,
  ): Promise<void> {
    if (await this.hasActiveFactor(actor.user.id, identity, within)) return;
    const now = this.now();
    const recentSignIn = actor.signedInAt !== undefined && now - actor.signedInAt <= STEP_UP_TTL_MS;
    if (recentSignIn) return;
    if ((await within.grants.passwordGrantExpiry(actor.user.id, actor.grantKey, now)) !== undefined) return;
    // A backend that cannot check passwords (Okta) leaves a new sign-in as the only proof: the page says so.
    const proof: ReauthenticationProof = this.identity.canCheckPasswords ? 'password' : 'sign-in';
    throw new HttpError(
      403,
      proof === 'password'
        ? `${REAUTHENTICATION_REQUIRED_ERROR}: enter your password to turn on 2-step verification.`
        : `${REAUTHENTICATION_REQUIRED_ERROR}: sign in again to turn on 2-step verification.`,
      {},
      API_ERROR_CODES.reauthenticationRequired,
      { proof },
    );
  }

  /** The password was entered again: this session may turn on a first factor for 5 minutes. */
  grantReauthentication(actor: Actor): Promise<number> {
    return this.grant(actor.user.id, actor.grantKey, 'password');
  }

  /**
   * After a password or 2-step change: every step-up grant of the user ends but the caller's, which waits for
   * the caller's next grant chain when the change ended the caller's own (actor.carryKey), so the page goes on
   * without a new step-up once it renewed with its session cookie, and a copied refresh token (no cookie) never
   * gets it.
   */
  async endOtherStepUpGrants(actor: Actor, within: Storage): Promise<void> {
    await within.grants.endAllCarrying(actor.user.id, actor.grantKey, actor.carryKey);
  }

  // ---- Verification (step-up and sign-in) -----------------------------------------------------------------

  private async requireActive(userId: string, type: FactorName): Promise<void> {
    if (findFactor(await this.identity.listFactors(userId), type)?.status !== 'ACTIVE') {
      throw refusal(API_ERRORS.factorState, `${FACTOR_LABELS[type]} is not turned on for this account`);
    }
  }

  /** Sends a step-up / sign-in code by email; the email factor must be active. Answers the masked address. */
  async sendVerificationEmail(user: User): Promise<string> {
    await this.requireActive(user.id, 'email');
    await this.attempts.countedSend(user.id, () => this.identity.sendVerificationEmail(user));
    return maskEmail(user.email);
  }

  /** Checks a code of an active factor. Throws 400 INVALID_CODE_ERROR, or 429 when throttled. */
  async verifyCode(user: User, type: FactorName, code: string, userAgent?: string): Promise<void> {
    await this.requireActive(user.id, type);
    const attempt = await this.attempts.reserve(user.id);
    if (!(await this.identity.verify(user.id, type, code)))
      await this.attempts.wrong(user, userAgent, attempt);
    await this.attempts.accepted(user.id);
  }

  /**
   * Sign-in's second step: the code may come from any active factor (the authenticator app, or an email the
   * user asked for). One wrong code counts once, whichever factors it was tried against. Returns the factor
   * that matched.
   */
  async verifyAnyFactor(user: User, code: string, userAgent?: string): Promise<FactorName> {
    const active = await this.activeTypes(user.id);
    if (active.length === 0)
      throw refusal(API_ERRORS.factorState, 'This account has no active 2-step factor');
    const attempt = await this.attempts.reserve(user.id);
    for (const type of active) {
      if (await this.identity.verify(user.id, type, code)) {
        await this.attempts.accepted(user.id);
        return type;
      }
    }
    return this.attempts.wrong(user, userAgent, attempt);
  }

  /** Step-up verify: a correct code grants this sign-in session 5 minutes. Returns the end (ms). */
  async stepUp(actor: Actor, type: FactorName, code: string): Promise<number> {
    await this.verifyCode(actor.user, type, code, actor.userAgent);
    return this.grant(actor.user.id, actor.grantKey, type);
  }

  /**
   * Step-up with a recovery code instead of a factor's code: the code used up and this session's 5-minute grant
   * in one transaction. Returns the grant's end (ms). A wrong or used code: 400 INVALID_CODE_ERROR, counted with
   * the wrong factor codes; 429 when throttled; 409 where recovery codes are not available (Okta).
   */
  async stepUpWithRecoveryCode(actor: Actor, typed: string): Promise<number> {
    let expiresAt: number | undefined;
    const outcome = await this.recoveryCodes.use(
      actor.user,
      typed,
      { use: 'step-up', userAgent: actor.userAgent, ip: actor.ip },
      async (tx) => {
        expiresAt = await this.grant(actor.user.id, actor.grantKey, 'recovery-code', tx.grants);
      },
    );
    if (outcome === 'wrong' || expiresAt === undefined)
      throw refusal(API_ERRORS.invalidCode, INVALID_CODE_ERROR);
    return expiresAt;
  }

  /** Housekeeping: expired grants, throttle events that no longer count. */
  async prune(): Promise<number> {
    return (await this.grants.prune(this.now())) + (await this.attempts.prune());
  }
}
