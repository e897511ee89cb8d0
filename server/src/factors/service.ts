import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
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
  type FactorDetailsResponse,
  type FactorName,
  type FactorStatus,
  type FactorStatusResponse,
  type GoogleEnrollResponse,
} from 'shared-auth/contract';
import type { AccountSessions } from '../auth/sessions.js';
import type { User } from '../directory/directory.js';
import { HttpError, refusal } from '../http/errors.js';
import type { AccountEvent, Notifier } from '../notifications/types.js';
import { MailError, type Mailer } from '../mail/mailer.js';
import type { Storage } from '../storage/index.js';
import { EMAIL_SEND_LIMIT, WRONG_CODE_LIMIT } from '../throttles/limits.js';
import { describeWait, Throttle, tooManyRequests, type Reservation } from '../throttles/throttle.js';
import type { GrantProof, GrantStore } from './grants.js';
import { deriveKey, type SecretBox } from './secret-box.js';
import type { CodePurpose, FactorRecord, FactorStore } from './store.js';
import { checkTotp, newTotpSecret, totpUri } from './totp.js';

/** Email codes: 6 random digits, valid for 10 minutes, single use; a new send replaces the previous one. */
export const EMAIL_CODE_TTL_MS = 10 * 60 * 1000;
export const EMAIL_CODE_DIGITS = 6;

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
  signedInAt: number | undefined;
  userAgent: string | undefined;
}

export interface FactorServiceOptions {
  /**
   * Factors, email codes, step-up grants, the wrong-code and email-send throttles' events (limits:
   * throttles/limits.ts), and the transactions that end the other sessions and queue the notice together with a
   * factor's change.
   */
  storage: Storage;
  sessions: AccountSessions;
  notifier: Notifier;
  box: SecretBox;
  /** The 32-byte configured key; email codes are hashed with a key derived from it. */
  key: Buffer;
  mailer: Mailer;
  now: () => number;
  /** Where delivery failures and unreadable secrets are logged (the app's logger). */
  log?: { warn(object: object, message: string): void; error(object: object, message: string): void };
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

function statusOf(row: FactorRecord | undefined): FactorStatus {
  return row?.status ?? 'NOT_ENROLLED';
}

/**
 * Everything the server decides about 2-step factors: enrolment, activation, opt-in/out, removal, step-up
 * verification and its grants, email codes, and the throttles. The API routes and the sign-in step both use
 * it, so the rules are the same everywhere. Refusals are HttpErrors with a message safe to show.
 */
export class FactorService {
  private readonly storage: Storage;
  private readonly sessions: AccountSessions;
  private readonly notifier: Notifier;
  private readonly store: FactorStore;
  private readonly grants: GrantStore;
  private readonly box: SecretBox;
  private readonly codeKey: Buffer;
  private readonly mailer: Mailer;
  private readonly now: () => number;
  private readonly log: FactorServiceOptions['log'];
  readonly wrongCodes: Throttle;
  readonly emailSends: Throttle;

  constructor(options: FactorServiceOptions) {
    const { storage, sessions, notifier, box, key, mailer, now, log } = options;
    this.storage = storage;
    this.grants = storage.grants;
    this.sessions = sessions;
    this.notifier = notifier;
    this.log = log;
    this.store = storage.factors;
    this.box = box;
    this.codeKey = deriveKey(key, 'portal email verification codes');
    this.mailer = mailer;
    this.now = now;
    this.wrongCodes = new Throttle(storage.throttles.wrongCodes, WRONG_CODE_LIMIT, now);
    this.emailSends = new Throttle(storage.throttles.emailSends, EMAIL_SEND_LIMIT, now);
  }

  // ---- Reading --------------------------------------------------------------------------------------------

  async activeTypes(userId: string, store: FactorStore = this.store): Promise<FactorName[]> {
    const rows = await store.factors(userId);
    return rows.filter((row) => row.status === 'ACTIVE').map((row) => row.type);
  }

  async hasActiveFactor(userId: string, store: FactorStore = this.store): Promise<boolean> {
    return (await this.activeTypes(userId, store)).length > 0;
  }

  /** Step-up data (spec section 3): only active factors, keyed by factor type. */
  async activeFactorsData(user: User): Promise<ActiveFactorsData> {
    const data: ActiveFactorsData = {};
    for (const type of await this.activeTypes(user.id)) {
      if (type === 'googleAuth') data.googleAuth = {};
      if (type === 'email') data.email = { maskedEmail: maskEmail(user.email) };
    }
    return data;
  }

  async details(userId: string, type: FactorName): Promise<FactorDetailsResponse> {
    const row = await this.store.factor(userId, type);
    const enrolled = row?.status === 'ACTIVE' || row?.status === 'INACTIVE';
    return { enrolled, enrolledDate: enrolled ? (row?.enrolledAt ?? null) : null };
  }

  private async statusResponse(
    userId: string,
    type: FactorName,
    store: FactorStore = this.store,
  ): Promise<FactorStatusResponse> {
    const row = await store.factor(userId, type);
    return { status: statusOf(row), enrolledDate: row?.enrolledAt ?? null };
  }

  // ---- Step-up grants -------------------------------------------------------------------------------------

  /** When the session's step-up ends (ms), or undefined when it has none that is still valid. */
  grantExpiry(userId: string, sessionId: string): Promise<number | undefined> {
    return this.grants.factorGrantExpiry(userId, sessionId, this.now());
  }

  /** Step-up is needed when the user has an active factor and this session has no valid grant. */
  async needsStepUp(userId: string, sessionId: string, within: Storage = this.storage): Promise<boolean> {
    return (
      (await this.hasActiveFactor(userId, within.factors)) &&
      (await within.grants.factorGrantExpiry(userId, sessionId, this.now())) === undefined
    );
  }

  async requireStepUp(userId: string, sessionId: string, within: Storage = this.storage): Promise<void> {
    if (await this.needsStepUp(userId, sessionId, within)) throw stepUpRequired();
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
  async requireFreshProof(actor: Actor, within: Storage = this.storage): Promise<void> {
    if (await this.hasActiveFactor(actor.user.id, within.factors)) return;
    const now = this.now();
    const recentSignIn = actor.signedInAt !== undefined && now - actor.signedInAt <= STEP_UP_TTL_MS;
    if (recentSignIn) return;
    if ((await within.grants.passwordGrantExpiry(actor.user.id, actor.grantKey, now)) !== undefined) return;
    throw new HttpError(
      403,
      `${REAUTHENTICATION_REQUIRED_ERROR}: enter your password to turn on 2-step verification.`,
      {},
      API_ERROR_CODES.reauthenticationRequired,
    );
  }

  /** The password was entered again: this session may turn on a first factor for 5 minutes. */
  grantReauthentication(actor: Actor): Promise<number> {
    return this.grant(actor.user.id, actor.grantKey, 'password');
  }

  /** Ends the step-up grants of every session of the user but the caller's (after a password change). */
  async endOtherStepUpGrants(userId: string, keepGrantKey: string, within: Storage): Promise<void> {
    await within.grants.deleteOthers(userId, keepGrantKey);
  }

  /**
   * A factor became active, was turned on or off, or was removed: every other session of the account ends
   * (sessions, grants, refresh tokens, step-up grants), the change's notice is queued, all in `tx` (the
   * transaction of the change itself), so a phishing session that held the password is out the moment 2-step
   * changes.
   */
  private async endOthersAndNotify(tx: Storage, actor: Actor, event: AccountEvent): Promise<void> {
    await this.sessions.endOtherSessions(actor.user.id, actor.sessionUid, tx);
    await tx.grants.deleteOthers(actor.user.id, actor.grantKey);
    await this.notifier.queue(actor.user, event, { userAgent: actor.userAgent, at: this.now() }, tx.outbox);
  }

  // ---- Codes ----------------------------------------------------------------------------------------------

  private codeHash(userId: string, purpose: CodePurpose, code: string): string {
    return createHmac('sha256', this.codeKey).update(`${userId}\n${purpose}\n${code}`).digest('hex');
  }

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

  /** The TOTP step the code belongs to, or null when it is wrong or a replay. */
  private totpStep(user: User, row: FactorRecord, code: string): number | null {
    let secret: string;
    try {
      if (!row.secretEnc) throw new Error('no secret stored');
      secret = this.box.open(row.secretEnc, user.id);
    } catch (error) {
      // A key that does not match the sealed secrets (start-up refuses that) or a damaged row: the attempt is
      // already counted, and the answer says the check is unavailable rather than wrong.
      this.log?.error({ err: error, userId: user.id }, 'authenticator secret cannot be opened');
      throw new HttpError(503, 'Authenticator codes cannot be checked right now. Try again later.', {
        'Retry-After': '60',
      });
    }
    const result = checkTotp(secret, code, this.now(), row.lastStep);
    return result.ok ? result.step : null;
  }

  /** True (and the code used up) when it is the user's current email code of this purpose. */
  private async useEmailCode(
    user: User,
    purpose: CodePurpose,
    code: string,
    store: FactorStore = this.store,
  ): Promise<boolean> {
    const stored = await store.emailCode(user.id);
    const entered = code.replace(/\s+/g, '');
    const hash = this.codeHash(user.id, purpose, entered);
    const matches =
      stored !== undefined &&
      stored.purpose === purpose &&
      stored.expiresAt > this.now() &&
      /^\d+$/.test(entered) &&
      timingSafeEqual(Buffer.from(stored.codeHash, 'hex'), Buffer.from(hash, 'hex'));
    // Deleting by hash makes the use single even if two requests race.
    return matches && (await store.consumeEmailCode(user.id, hash));
  }

  /** Sends a new email code (replacing any earlier one); at most one send per user every 30 seconds. */
  async sendEmailCode(user: User, purpose: CodePurpose): Promise<string> {
    const send = await this.emailSends.reserveOrThrow(user.id, (wait) =>
      tooManyRequests(
        `A code was sent less than 30 seconds ago. Wait ${describeWait(wait)} before asking for another.`,
        wait,
      ),
    );
    const code = String(randomInt(0, 10 ** EMAIL_CODE_DIGITS)).padStart(EMAIL_CODE_DIGITS, '0');
    const now = this.now();
    try {
      await this.mailer.send({
        to: user.email,
        subject:
          purpose === 'activate' ? 'Confirm your email for 2-step verification' : 'Your verification code',
        text: [
          `Your verification code is ${code}`,
          '',
          `It is valid for 10 minutes and can be used once. ${
            purpose === 'activate'
              ? 'Enter it on the Security page to turn on verification with email.'
              : 'Enter it where you were asked for a verification code.'
          }`,
          '',
          "If you did not ask for this code, someone may know your password: change it, and don't share this code.",
        ].join('\n'),
      });
    } catch (error) {
      await this.emailSends.undo(send);
      if (this.mailer.transport === 'none' && error instanceof MailError) {
        throw new HttpError(503, error.message);
      }
      this.log?.warn({ err: error }, 'verification email not sent');
      throw new HttpError(502, 'The verification email could not be sent. Try again in a moment.');
    }
    await this.store.putEmailCode({
      userId: user.id,
      purpose,
      codeHash: this.codeHash(user.id, purpose, code),
      sentAt: now,
      expiresAt: now + EMAIL_CODE_TTL_MS,
    });
    return maskEmail(user.email);
  }

  // ---- Verification (step-up and sign-in) -----------------------------------------------------------------

  private async activeRow(user: User, type: FactorName): Promise<FactorRecord> {
    const row = await this.store.factor(user.id, type);
    if (row?.status !== 'ACTIVE') {
      throw refusal(API_ERRORS.factorState, `${FACTOR_LABELS[type]} is not turned on for this account`);
    }
    return row;
  }

  /** Sends a step-up / sign-in code by email; the email factor must be active. */
  async sendVerificationEmail(user: User): Promise<string> {
    await this.activeRow(user, 'email');
    return this.sendEmailCode(user, 'verify');
  }

  /** Checks a code of an active factor. Throws 400 INVALID_CODE_ERROR, or 429 when throttled. */
  async verifyCode(user: User, type: FactorName, code: string, userAgent?: string): Promise<void> {
    const row = await this.activeRow(user, type);
    const attempt = await this.reserveCodeAttempt(user.id);
    if (type === 'googleAuth') {
      const step = this.totpStep(user, row, code);
      // Recording the step is a compare-and-set: of two requests racing with one code, only one gets through.
      if (step === null || !(await this.store.setLastStep(user.id, type, step))) {
        await this.wrongCode(user, userAgent, attempt);
      }
    } else if (!(await this.useEmailCode(user, 'verify', code))) {
      await this.wrongCode(user, userAgent, attempt);
    }
    await this.codeAccepted(user.id);
  }

  /**
   * Sign-in's second step: the code may come from the authenticator app or from an email the user asked for.
   * One wrong code counts once, whichever factors it was tried against. Returns the factor that matched.
   */
  async verifyAnyFactor(user: User, code: string, userAgent?: string): Promise<FactorName> {
    const rows = (await this.store.factors(user.id)).filter((row) => row.status === 'ACTIVE');
    if (rows.length === 0) throw refusal(API_ERRORS.factorState, 'This account has no active 2-step factor');
    const attempt = await this.reserveCodeAttempt(user.id);
    for (const row of rows) {
      if (row.type === 'googleAuth') {
        const step = this.totpStep(user, row, code);
        if (step !== null && (await this.store.setLastStep(user.id, row.type, step))) {
          await this.codeAccepted(user.id);
          return row.type;
        }
      } else if (await this.useEmailCode(user, 'verify', code)) {
        await this.codeAccepted(user.id);
        return row.type;
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

  private async refuseIfEnrolled(
    userId: string,
    type: FactorName,
    store: FactorStore = this.store,
  ): Promise<void> {
    const status = statusOf(await store.factor(userId, type));
    if (status === 'ACTIVE' || status === 'INACTIVE') {
      throw refusal(
        API_ERRORS.factorState,
        `${FACTOR_LABELS[type]} is already set up; remove it first to set it up again`,
      );
    }
  }

  /** A new secret (replacing a pending one); the factor stays pending until a correct code activates it. */
  async enrollGoogle(actor: Actor): Promise<GoogleEnrollResponse> {
    const { user } = actor;
    const secret = newTotpSecret();
    const sealed = this.box.seal(secret, user.id);
    // The checks and the write in one transaction: a factor activated meanwhile is not reset to pending.
    await this.storage.transaction(async (tx) => {
      await this.requireFreshProof(actor, tx);
      await this.refuseIfEnrolled(user.id, 'googleAuth', tx.factors);
      await tx.factors.putPending(user.id, 'googleAuth', sealed, this.now());
    });
    return { qrLink: totpUri(secret, user.email), secret };
  }

  /** Sends an activation code to the account's email and marks the email factor pending. */
  async enrollEmail(actor: Actor): Promise<FactorStatus> {
    const { user } = actor;
    await this.requireFreshProof(actor);
    await this.refuseIfEnrolled(user.id, 'email');
    await this.sendEmailCode(user, 'activate');
    // Checked again with the write: the mail took a while, and the factor may have been set up meanwhile.
    await this.storage.transaction(async (tx) => {
      await this.refuseIfEnrolled(user.id, 'email', tx.factors);
      await tx.factors.putPending(user.id, 'email', null, this.now());
    });
    return 'PENDING_ACTIVATION';
  }

  /**
   * A correct code activates a pending factor. It also proves possession of the new factor, so the session
   * gets a step-up grant: a user who just set up their first factor can go on to manage it.
   */
  async activate(actor: Actor, type: FactorName, code: string): Promise<FactorStatusResponse> {
    const { user } = actor;
    await this.requireFreshProof(actor);
    const row = await this.store.factor(user.id, type);
    const notPending = () =>
      refusal(
        API_ERRORS.factorState,
        row ? `${FACTOR_LABELS[type]} is already set up` : `Start setting up ${FACTOR_LABELS[type]} first`,
      );
    if (row?.status !== 'PENDING_ACTIVATION') throw notPending();
    const attempt = await this.reserveCodeAttempt(user.id);
    let step: number | null = null;
    if (type === 'googleAuth') {
      step = this.totpStep(user, row, code);
      if (step === null) await this.wrongCode(user, actor.userAgent, attempt);
    } else if (!(await this.useEmailCode(user, 'activate', code))) {
      await this.wrongCode(user, actor.userAgent, attempt);
    }
    return this.storage.transaction(async (tx) => {
      // Pending → active is a compare-and-set: of two activations racing, one changes the factor.
      if (!(await tx.factors.activate(user.id, type, step, this.now()))) throw notPending();
      await this.codeAccepted(user.id, tx);
      await this.grant(user.id, actor.grantKey, type, tx.grants);
      await this.endOthersAndNotify(tx, actor, { type: 'factor-activated', factor: type });
      return this.statusResponse(user.id, type, tx.factors);
    });
  }

  // ---- Turning on and off, removal ------------------------------------------------------------------------

  optIn(actor: Actor, type: FactorName): Promise<FactorStatusResponse> {
    const { user } = actor;
    // Every check and the change in one write transaction: what was checked still holds when it is written.
    return this.storage.transaction(async (tx) => {
      await this.requireFreshProof(actor, tx);
      const status = statusOf(await tx.factors.factor(user.id, type));
      if (status === 'INACTIVE') {
        await tx.factors.setStatus(user.id, type, 'ACTIVE', this.now());
        await this.endOthersAndNotify(tx, actor, { type: 'factor-turned-on', factor: type });
      } else if (status !== 'ACTIVE') {
        throw refusal(API_ERRORS.factorState, `Set up ${FACTOR_LABELS[type]} before turning it on`);
      }
      return this.statusResponse(user.id, type, tx.factors);
    });
  }

  private async refuseLastFactor(
    userId: string,
    type: FactorName,
    action: string,
    store: FactorStore,
  ): Promise<void> {
    const active = await this.activeTypes(userId, store);
    if (active.includes(type) && active.length < MIN_ACTIVE_FACTORS_TO_TURN_OFF) {
      throw refusal(
        API_ERRORS.lastFactor,
        `You cannot ${action} your only active 2-step factor: at least ${MIN_ACTIVE_FACTORS_TO_TURN_OFF} active factors are required. Set up another factor first.`,
      );
    }
  }

  optOut(actor: Actor, type: FactorName): Promise<FactorStatusResponse> {
    const { user } = actor;
    // In one write transaction: two sessions turning off the last two factors at once cannot both pass the
    // last-factor check.
    return this.storage.transaction(async (tx) => {
      const status = statusOf(await tx.factors.factor(user.id, type));
      if (status === 'NOT_ENROLLED' || status === 'PENDING_ACTIVATION') {
        throw refusal(API_ERRORS.factorState, `${FACTOR_LABELS[type]} is not set up`);
      }
      await this.refuseLastFactor(user.id, type, 'turn off', tx.factors);
      if (status === 'ACTIVE') {
        await tx.factors.setStatus(user.id, type, 'INACTIVE', this.now());
        await this.endOthersAndNotify(tx, actor, { type: 'factor-turned-off', factor: type });
      }
      return this.statusResponse(user.id, type, tx.factors);
    });
  }

  reset(actor: Actor, type: FactorName): Promise<FactorStatusResponse> {
    const { user } = actor;
    return this.storage.transaction(async (tx) => {
      const status = statusOf(await tx.factors.factor(user.id, type));
      if (status === 'NOT_ENROLLED') return this.statusResponse(user.id, type, tx.factors);
      await this.refuseLastFactor(user.id, type, 'remove', tx.factors);
      await tx.factors.deleteFactor(user.id, type);
      if (type === 'email') await tx.factors.deleteEmailCode(user.id);
      // A set-up that never finished is no factor yet: nothing to end or tell.
      if (status !== 'PENDING_ACTIVATION') {
        await this.endOthersAndNotify(tx, actor, { type: 'factor-removed', factor: type });
      }
      return this.statusResponse(user.id, type, tx.factors);
    });
  }

  /** Housekeeping: expired grants and codes, throttle events that no longer count. */
  async prune(): Promise<number> {
    const now = this.now();
    const counts = [
      await this.grants.prune(now),
      await this.store.pruneCodes(now),
      await this.wrongCodes.prune(),
      await this.emailSends.prune(),
    ];
    return counts.reduce((sum, count) => sum + count, 0);
  }
}
