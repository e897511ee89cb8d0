import {
  API_ERROR_CODES,
  API_ERRORS,
  INVALID_CODE_ERROR,
  maskEmail,
  REAUTHENTICATION_REQUIRED_ERROR,
  MIN_ACTIVE_FACTORS_TO_TURN_OFF,
  STEP_UP_REQUIRED_ERROR,
  STEP_UP_TTL_MS,
  type ActiveFactorsData,
  type ChallengeResponse,
  type FactorDetailsResponse,
  type FactorName,
  type FactorStatus,
  type FactorStatusResponse,
  type GoogleEnrollResponse,
  type ReauthenticationProof,
} from 'shared-auth/contract';
import type { AccountSessions } from '../auth/sessions.js';
import type { User } from '../directory/directory.js';
import { HttpError, refusal } from '../http/errors.js';
import type { IdentityBackend, IdentityFactor } from '../identity/types.js';
import type { AccountEvent, Notifier } from '../notifications/types.js';
import type { Storage } from '../storage/index.js';
import { EMAIL_SEND_LIMIT, WRONG_CODE_LIMIT } from '../throttles/limits.js';
import { describeWait, Throttle, tooManyRequests, type Reservation } from '../throttles/throttle.js';
import type { GrantProof, GrantStore } from './grants.js';

const FACTOR_LABELS: Record<FactorName, string> = {
  googleAuth: 'Google Authenticator',
  email: 'Email verification',
};

/**
 * Who asks for a change: the user, their sign-in session (the step-up grant key, and the provider session's uid
 * that stays signed in when the others end), when it signed in, and the browser (for the notice mail).
 */
export interface Actor {
  user: User;
  grantKey: string;
  sessionUid: string | undefined;
  /**
   * Where the caller's step-up waits when a change ends its grant chain (carriedGrantKey), for the next grant
   * its provider session creates; undefined when the change leaves the caller's grant alone (Okta).
   */
  carryKey?: string | undefined;
  signedInAt: number | undefined;
  /** The caller's access token (`jti`): Okta mode spares it when a change refuses the account's older tokens. */
  tokenId?: string | undefined;
  userAgent: string | undefined;
}

export interface FactorServiceOptions {
  /** Where the factors, their secrets and codes live, and what checks a code (embedded or Okta). */
  identity: IdentityBackend;
  /**
   * Step-up grants, the wrong-code and email-send throttles' events (limits: throttles/limits.ts), and the
   * transactions that end the other sessions and queue the notice together with a factor's change.
   */
  storage: Storage;
  sessions: AccountSessions;
  notifier: Notifier;
  now: () => number;
  /** Where a throttle count that could not be taken back is logged (the app's logger). */
  log?: { warn(object: object, message: string): void } | undefined;
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

function tooManyWrongCodes(waitMs: number): HttpError {
  return tooManyRequests(
    `Too many wrong codes. For your security, try again in ${describeWait(waitMs)}.`,
    waitMs,
  );
}

function statusResponse(factor: IdentityFactor | undefined): FactorStatusResponse {
  return { status: factor?.status ?? 'NOT_ENROLLED', enrolledDate: factor?.enrolledAt ?? null };
}

const find = (factors: IdentityFactor[], type: FactorName) => factors.find((f) => f.type === type);
const activeOf = (factors: IdentityFactor[]) =>
  factors.filter((f) => f.status === 'ACTIVE').map((f) => f.type);

/** What a change of a factor answers, and the event it notifies (none when nothing changed). */
interface FactorChange {
  response: FactorStatusResponse;
  event?: AccountEvent | undefined;
}

/**
 * What the portal decides about 2-step factors, whichever identity backend holds them: the step-up and its
 * grants, fresh proof before a first factor, the last-factor rule, the wrong-code and email-send throttles, ending
 * the account's other sessions and the notice on every change. The factors themselves (their secrets, the codes,
 * their states) are the backend's (`identity`). The API routes and the sign-in step both use this service, so
 * the rules are the same everywhere. Refusals are HttpErrors with a message safe to show.
 */
export class FactorService {
  private readonly identity: IdentityBackend;
  private readonly storage: Storage;
  private readonly sessions: AccountSessions;
  private readonly notifier: Notifier;
  private readonly grants: GrantStore;
  private readonly now: () => number;
  private readonly log: FactorServiceOptions['log'];
  readonly wrongCodes: Throttle;
  readonly emailSends: Throttle;

  constructor(options: FactorServiceOptions) {
    const { identity, storage, sessions, notifier, now, log } = options;
    this.identity = identity;
    this.storage = storage;
    this.grants = storage.grants;
    this.sessions = sessions;
    this.notifier = notifier;
    this.now = now;
    this.log = log;
    this.wrongCodes = new Throttle(storage.throttles.wrongCodes, WRONG_CODE_LIMIT, now);
    this.emailSends = new Throttle(storage.throttles.emailSends, EMAIL_SEND_LIMIT, now);
  }

  /**
   * Runs a change of the account's factors: `change` makes the checks and the backend's change, `record` the
   * portal's own writes after it (grant, ended sessions, notice). A backend in the portal's database (embedded)
   * takes part in one write transaction with both, so what `change` checked still holds when everything commits
   * together. Otherwise (Okta) `change` runs outside any transaction, so the database's write lock is never held
   * across a call to Okta, and `record` in a transaction of its own once the backend made the change.
   */
  private change<T>(change: (identity: IdentityBackend, within: Storage) => Promise<T>): Promise<T>;
  private change<T, R>(
    change: (identity: IdentityBackend, within: Storage) => Promise<T>,
    record: (tx: Storage, changed: T) => Promise<R>,
  ): Promise<R>;
  private async change<T, R>(
    change: (identity: IdentityBackend, within: Storage) => Promise<T>,
    record?: (tx: Storage, changed: T) => Promise<R>,
  ): Promise<T | R> {
    const { identity } = this;
    if (identity.inTransaction) {
      const bind = identity.inTransaction.bind(identity);
      return this.storage.transaction(async (tx) => {
        const changed = await change(bind(tx), tx);
        return record ? record(tx, changed) : changed;
      });
    }
    const changed = await change(identity, this.storage);
    return record ? this.storage.transaction((tx) => record(tx, changed)) : changed;
  }

  // ---- Reading --------------------------------------------------------------------------------------------

  async activeTypes(userId: string, identity: IdentityBackend = this.identity): Promise<FactorName[]> {
    return activeOf(await identity.listFactors(userId));
  }

  async hasActiveFactor(userId: string, identity: IdentityBackend = this.identity): Promise<boolean> {
    return (await this.activeTypes(userId, identity)).length > 0;
  }

  private static factorsData(user: User, active: FactorName[]): ActiveFactorsData {
    const data: ActiveFactorsData = {};
    for (const type of active) {
      if (type === 'googleAuth') data.googleAuth = {};
      if (type === 'email') data.email = { maskedEmail: maskEmail(user.email) };
    }
    return data;
  }

  /** Step-up data (spec section 3): only active factors, keyed by factor type. */
  async activeFactorsData(user: User): Promise<ActiveFactorsData> {
    return FactorService.factorsData(user, await this.activeTypes(user.id));
  }

  /** The step-up challenge of this session: whether it must verify, and with which factors (one read of them). */
  async challenge(user: User, sessionId: string): Promise<ChallengeResponse> {
    const active = await this.activeTypes(user.id);
    const granted = (await this.grantExpiry(user.id, sessionId)) !== undefined;
    return {
      challengeUser: active.length > 0 && !granted,
      activeFactorsData: FactorService.factorsData(user, active),
    };
  }

  async details(userId: string, type: FactorName): Promise<FactorDetailsResponse> {
    const factor = find(await this.identity.listFactors(userId), type);
    const enrolled = factor?.status === 'ACTIVE' || factor?.status === 'INACTIVE';
    return {
      enrolled,
      enrolledDate: enrolled ? (factor?.enrolledAt ?? null) : null,
      turnOff: this.identity.factorTurnOff,
    };
  }

  // ---- Step-up grants -------------------------------------------------------------------------------------

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

  private async grant(
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
    identity: IdentityBackend = this.identity,
  ): Promise<void> {
    if (await this.hasActiveFactor(actor.user.id, identity)) return;
    const now = this.now();
    const recentSignIn = actor.signedInAt !== undefined && now - actor.signedInAt <= STEP_UP_TTL_MS;
    if (recentSignIn) return;
    if ((await within.grants.passwordGrantExpiry(actor.user.id, actor.grantKey, now)) !== undefined) return;
    // A backend that cannot check passwords (Okta) leaves a new sign-in as the only proof: the page says so.
    const proof: ReauthenticationProof = identity.canCheckPasswords ? 'password' : 'sign-in';
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

  /**
   * A factor became active, was turned on or off, or was removed: every other session of the account ends, and
   * every grant chain and refresh token of the account, the caller's included (a copied refresh token may be a
   * branch of it); the caller keeps its provider session and renews with its cookie. The step-up grants go too
   * (the caller's is carried to its next chain), the change's notice is queued, all in `tx` (the transaction of
   * the change itself where the backend takes part in it), so a phishing session that held the password or a
   * copied refresh token is out the moment 2-step changes.
   */
  private async endOthersAndNotify(tx: Storage, actor: Actor, event: AccountEvent): Promise<void> {
    await this.sessions.endOtherSessions(actor.user.id, actor.sessionUid, tx, actor.tokenId);
    await this.endOtherStepUpGrants(actor, tx);
    await this.notifier.queue(actor.user, event, { userAgent: actor.userAgent, at: this.now() }, tx.outbox);
  }

  // ---- Codes ----------------------------------------------------------------------------------------------

  /**
   * Counts the attempt before the code is checked (a correct code takes it back): when the attempt cannot be
   * recorded (a full or read-only disk), the storage error answers 503 before anything was checked, the same
   * whatever was guessed. At the limit: 429.
   */
  private reserveCodeAttempt(userId: string): Promise<Reservation> {
    return this.wrongCodes.reserveOrThrow(userId, tooManyWrongCodes);
  }

  private async codeAccepted(userId: string, within: Storage = this.storage): Promise<void> {
    await within.throttles.wrongCodes.clear(userId);
  }

  /** The reserved attempt stays counted; the one that reaches the limit locks and tells the account holder. */
  private async wrongCode(user: User, userAgent: string | undefined, attempt: Reservation): Promise<never> {
    if (this.wrongCodes.locks(attempt)) {
      const event = {
        type: 'account-locked',
        reason: 'verification-code',
        until: await this.wrongCodes.lockedUntil(user.id),
      } as const;
      const now = this.now();
      if (!(await this.notifier.queuedSince(user.id, event, now - WRONG_CODE_LIMIT.windowMs))) {
        await this.notifier.queue(user, event, { userAgent, at: now });
      }
    }
    throw refusal(API_ERRORS.invalidCode, INVALID_CODE_ERROR);
  }

  /**
   * A code is sent by email (the backend sends it): at most one send per user every 30 seconds, counted before
   * the send and taken back when the send fails.
   */
  private async countedSend(userId: string, send: () => Promise<void>): Promise<void> {
    const reservation = await this.emailSends.reserveOrThrow(userId, (wait) =>
      tooManyRequests(
        `A code was sent less than 30 seconds ago. Wait ${describeWait(wait)} before asking for another.`,
        wait,
      ),
    );
    try {
      await send();
    } catch (error) {
      await this.emailSends.undo(reservation).catch((undoError: unknown) => {
        this.log?.warn({ err: undoError }, 'email send count not taken back');
      });
      throw error;
    }
  }

  // ---- Verification (step-up and sign-in) -----------------------------------------------------------------

  private async requireActive(userId: string, type: FactorName): Promise<void> {
    if (find(await this.identity.listFactors(userId), type)?.status !== 'ACTIVE') {
      throw refusal(API_ERRORS.factorState, `${FACTOR_LABELS[type]} is not turned on for this account`);
    }
  }

  /** Sends a step-up / sign-in code by email; the email factor must be active. Answers the masked address. */
  async sendVerificationEmail(user: User): Promise<string> {
    await this.requireActive(user.id, 'email');
    await this.countedSend(user.id, () => this.identity.sendVerificationEmail(user));
    return maskEmail(user.email);
  }

  /** Checks a code of an active factor. Throws 400 INVALID_CODE_ERROR, or 429 when throttled. */
  async verifyCode(user: User, type: FactorName, code: string, userAgent?: string): Promise<void> {
    await this.requireActive(user.id, type);
    const attempt = await this.reserveCodeAttempt(user.id);
    if (!(await this.identity.verify(user.id, type, code))) await this.wrongCode(user, userAgent, attempt);
    await this.codeAccepted(user.id);
  }

  /**
   * Sign-in's second step: the code may come from the authenticator app or from an email the user asked for.
   * One wrong code counts once, whichever factors it was tried against. Returns the factor that matched.
   */
  async verifyAnyFactor(user: User, code: string, userAgent?: string): Promise<FactorName> {
    const active = await this.activeTypes(user.id);
    if (active.length === 0)
      throw refusal(API_ERRORS.factorState, 'This account has no active 2-step factor');
    const attempt = await this.reserveCodeAttempt(user.id);
    for (const type of active) {
      if (await this.identity.verify(user.id, type, code)) {
        await this.codeAccepted(user.id);
        return type;
      }
    }
    return this.wrongCode(user, userAgent, attempt);
  }

  /** Step-up verify: a correct code grants this sign-in session 5 minutes. Returns the end (ms). */
  async stepUp(actor: Actor, type: FactorName, code: string): Promise<number> {
    await this.verifyCode(actor.user, type, code, actor.userAgent);
    return this.grant(actor.user.id, actor.grantKey, type);
  }

  // ---- Enrolment ------------------------------------------------------------------------------------------

  private static refuseIfSetUp(factors: IdentityFactor[], type: FactorName): void {
    const status = find(factors, type)?.status;
    if (status === 'ACTIVE' || status === 'INACTIVE') {
      throw refusal(
        API_ERRORS.factorState,
        `${FACTOR_LABELS[type]} is already set up; remove it first to set it up again`,
      );
    }
  }

  /** A new secret (replacing a pending one); the factor stays pending until a correct code activates it. */
  enrollGoogle(actor: Actor): Promise<GoogleEnrollResponse> {
    const { user } = actor;
    return this.change(async (identity, within) => {
      await this.requireFreshProof(actor, within, identity);
      FactorService.refuseIfSetUp(await identity.listFactors(user.id), 'googleAuth');
      return identity.enrollAuthenticator(user);
    });
  }

  /** Sends an activation code to the account's email and marks the email factor pending. */
  async enrollEmail(actor: Actor): Promise<FactorStatus> {
    const { user } = actor;
    await this.requireFreshProof(actor);
    FactorService.refuseIfSetUp(await this.identity.listFactors(user.id), 'email');
    await this.countedSend(user.id, () => this.identity.enrollEmail(user));
    return 'PENDING_ACTIVATION';
  }

  /**
   * A correct code activates a pending factor. It also proves possession of the new factor, so the session
   * gets a step-up grant: a user who just set up their first factor can go on to manage it.
   */
  async activate(actor: Actor, type: FactorName, code: string): Promise<FactorStatusResponse> {
    const { user } = actor;
    await this.requireFreshProof(actor);
    const factor = find(await this.identity.listFactors(user.id), type);
    if (factor?.status !== 'PENDING_ACTIVATION') {
      throw refusal(
        API_ERRORS.factorState,
        factor ? `${FACTOR_LABELS[type]} is already set up` : `Start setting up ${FACTOR_LABELS[type]} first`,
      );
    }
    const attempt = await this.reserveCodeAttempt(user.id);
    const activation = await this.identity.activate(user.id, type, code);
    if (!activation) return this.wrongCode(user, actor.userAgent, attempt);
    const response = await this.storage.transaction(async (tx) => {
      const active = await activation.commit(tx);
      await this.codeAccepted(user.id, tx);
      await this.grant(user.id, actor.grantKey, type, tx.grants);
      await this.endOthersAndNotify(tx, actor, { type: 'factor-activated', factor: type });
      return statusResponse(active);
    });
    await this.sessions.endOtherSessionsAfterCommit(user.id);
    return response;
  }

  // ---- Turning on and off, removal ------------------------------------------------------------------------

  /** The portal's part of a factor change: the other sessions end and the notice goes, when anything changed. */
  private recordFactorChange(actor: Actor) {
    return async (tx: Storage, { response, event }: FactorChange): Promise<FactorChange> => {
      if (event) await this.endOthersAndNotify(tx, actor, event);
      return { response, event };
    };
  }

  /**
   * Once the change committed: what ending the other sessions needs outside the database (Okta: the account's
   * refresh tokens at the org), when anything changed.
   */
  private async afterCommit(actor: Actor, recorded: Promise<FactorChange>): Promise<FactorStatusResponse> {
    const { response, event } = await recorded;
    if (event) await this.sessions.endOtherSessionsAfterCommit(actor.user.id);
    return response;
  }

  optIn(actor: Actor, type: FactorName): Promise<FactorStatusResponse> {
    const { user } = actor;
    // Embedded: every check and the change in one write transaction, so what was checked still holds.
    return this.afterCommit(
      actor,
      this.change(async (identity, within): Promise<FactorChange> => {
        await this.requireFreshProof(actor, within, identity);
        const factor = find(await identity.listFactors(user.id), type);
        if (factor?.status === 'INACTIVE') {
          const after = await identity.setEnabled(user.id, type, true);
          return { response: statusResponse(after), event: { type: 'factor-turned-on', factor: type } };
        }
        if (factor?.status !== 'ACTIVE') {
          throw refusal(API_ERRORS.factorState, `Set up ${FACTOR_LABELS[type]} before turning it on`);
        }
        return { response: statusResponse(factor) };
      }, this.recordFactorChange(actor)),
    );
  }

  private static refuseLastFactor(factors: IdentityFactor[], type: FactorName, action: string): void {
    const active = activeOf(factors);
    if (active.includes(type) && active.length < MIN_ACTIVE_FACTORS_TO_TURN_OFF) {
      throw refusal(
        API_ERRORS.lastFactor,
        `You cannot ${action} your only active 2-step factor: at least ${MIN_ACTIVE_FACTORS_TO_TURN_OFF} active factors are required. Set up another factor first.`,
      );
    }
  }

  /**
   * Turns a set-up factor off. Embedded: it stays set up (INACTIVE) and can be turned on again. Okta has no "off"
   * for one factor: the enrolment is removed (its own sign-in then stops asking for it), and the notice says so.
   */
  optOut(actor: Actor, type: FactorName): Promise<FactorStatusResponse> {
    const { user } = actor;
    // Embedded: in one write transaction, so two sessions turning off the last two factors at once cannot both
    // pass the last-factor check.
    return this.afterCommit(
      actor,
      this.change(async (identity): Promise<FactorChange> => {
        const factors = await identity.listFactors(user.id);
        const factor = find(factors, type);
        if (!factor || factor.status === 'PENDING_ACTIVATION') {
          throw refusal(API_ERRORS.factorState, `${FACTOR_LABELS[type]} is not set up`);
        }
        FactorService.refuseLastFactor(factors, type, 'turn off');
        if (factor.status !== 'ACTIVE') return { response: statusResponse(factor) };
        const after = await identity.setEnabled(user.id, type, false);
        return {
          response: statusResponse(after),
          event: { type: after ? 'factor-turned-off' : 'factor-removed', factor: type },
        };
      }, this.recordFactorChange(actor)),
    );
  }

  reset(actor: Actor, type: FactorName): Promise<FactorStatusResponse> {
    const { user } = actor;
    return this.afterCommit(
      actor,
      this.change(async (identity): Promise<FactorChange> => {
        const factors = await identity.listFactors(user.id);
        const factor = find(factors, type);
        if (!factor) return { response: statusResponse(undefined) };
        FactorService.refuseLastFactor(factors, type, 'remove');
        await identity.remove(user.id, type);
        return {
          response: statusResponse(undefined),
          // A set-up that never finished is no factor yet: nothing to end or tell.
          event:
            factor.status === 'PENDING_ACTIVATION' ? undefined : { type: 'factor-removed', factor: type },
        };
      }, this.recordFactorChange(actor)),
    );
  }

  /** Housekeeping: expired grants, throttle events that no longer count. */
  async prune(): Promise<number> {
    const counts = [
      await this.grants.prune(this.now()),
      await this.wrongCodes.prune(),
      await this.emailSends.prune(),
    ];
    return counts.reduce((sum, count) => sum + count, 0);
  }
}
