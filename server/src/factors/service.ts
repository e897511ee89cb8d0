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
import type { Transactions } from '../storage/index.js';
import { EMAIL_SEND_LIMIT, WRONG_CODE_LIMIT } from '../throttles/limits.js';
import {
  describeWait,
  Throttle,
  tooManyRequests,
  type Reservation,
  type ThrottleEvents,
} from '../throttles/throttle.js';
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
  /** For the changes that end the other sessions and queue the notice together with the factor's. */
  transactions: Transactions;
  store: FactorStore;
  grants: GrantStore;
  /** The wrong-code and email-send throttles' events (limits: throttles/limits.ts). */
  wrongCodes: ThrottleEvents;
  emailSends: ThrottleEvents;
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
  private readonly transactions: Transactions;
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
    const { transactions, store, grants, sessions, notifier, box, key, mailer, now, log } = options;
    this.transactions = transactions;
    this.grants = grants;
    this.sessions = sessions;
    this.notifier = notifier;
    this.log = log;
    this.store = store;
    this.box = box;
    this.codeKey = deriveKey(key, 'portal email verification codes');
    this.mailer = mailer;
    this.now = now;
    this.wrongCodes = new Throttle(options.wrongCodes, WRONG_CODE_LIMIT, now);
    this.emailSends = new Throttle(options.emailSends, EMAIL_SEND_LIMIT, now);
  }

  // ---- Reading --------------------------------------------------------------------------------------------

  activeTypes(userId: string): FactorName[] {
    return this.store
      .factors(userId)
      .filter((row) => row.status === 'ACTIVE')
      .map((row) => row.type);
  }

  hasActiveFactor(userId: string): boolean {
    return this.activeTypes(userId).length > 0;
  }

  /** Step-up data (spec section 3): only active factors, keyed by factor type. */
  activeFactorsData(user: User): ActiveFactorsData {
    const data: ActiveFactorsData = {};
    for (const type of this.activeTypes(user.id)) {
      if (type === 'googleAuth') data.googleAuth = {};
      if (type === 'email') data.email = { maskedEmail: maskEmail(user.email) };
    }
    return data;
  }

  details(userId: string, type: FactorName): FactorDetailsResponse {
    const row = this.store.factor(userId, type);
    const enrolled = row?.status === 'ACTIVE' || row?.status === 'INACTIVE';
    return { enrolled, enrolledDate: enrolled ? (row?.enrolledAt ?? null) : null };
  }

  private statusResponse(userId: string, type: FactorName): FactorStatusResponse {
    const row = this.store.factor(userId, type);
    return { status: statusOf(row), enrolledDate: row?.enrolledAt ?? null };
  }

  // ---- Step-up grants -------------------------------------------------------------------------------------

  /** When the session's step-up ends (ms), or undefined when it has none that is still valid. */
  grantExpiry(userId: string, sessionId: string): number | undefined {
    return this.grants.factorGrantExpiry(userId, sessionId, this.now());
  }

  /** Step-up is needed when the user has an active factor and this session has no valid grant. */
  needsStepUp(userId: string, sessionId: string): boolean {
    return this.hasActiveFactor(userId) && this.grantExpiry(userId, sessionId) === undefined;
  }

  requireStepUp(userId: string, sessionId: string): void {
    if (this.needsStepUp(userId, sessionId)) throw stepUpRequired();
  }

  private grant(userId: string, sessionId: string, proof: GrantProof): number {
    const expiresAt = this.now() + STEP_UP_TTL_MS;
    this.grants.put(userId, sessionId, proof, expiresAt);
    return expiresAt;
  }

  /**
   * Turning on the first factor is a sensitive change: whoever does it decides what the next sign-in asks for,
   * and the last-factor rule then keeps it. A stolen access token must not be enough, so it needs fresh proof:
   * the session signed in within the step-up window, or the password was entered again (reauthenticate).
   * With an active factor the step-up grant is that proof instead (requireStepUp).
   */
  requireFreshProof(actor: Actor): void {
    if (this.hasActiveFactor(actor.user.id)) return;
    const now = this.now();
    const recentSignIn = actor.signedInAt !== undefined && now - actor.signedInAt <= STEP_UP_TTL_MS;
    if (recentSignIn || this.grants.passwordGrantExpiry(actor.user.id, actor.grantKey, now) !== undefined)
      return;
    throw new HttpError(
      403,
      `${REAUTHENTICATION_REQUIRED_ERROR}: enter your password to turn on 2-step verification.`,
      {},
      API_ERROR_CODES.reauthenticationRequired,
    );
  }

  /** The password was entered again: this session may turn on a first factor for 5 minutes. */
  grantReauthentication(actor: Actor): number {
    return this.grant(actor.user.id, actor.grantKey, 'password');
  }

  /** Ends the step-up grants of every session of the user but the caller's (after a password change). */
  endOtherStepUpGrants(userId: string, keepGrantKey: string): void {
    this.grants.deleteOthers(userId, keepGrantKey);
  }

  /**
   * A factor became active, was turned on or off, or was removed: every other session of the account ends
   * (sessions, grants, refresh tokens, step-up grants), the change's notice is queued, all in one transaction
   * with the change itself, so a phishing session that held the password is out the moment 2-step changes.
   */
  private commitFactorChange(actor: Actor, event: AccountEvent, change: () => void): void {
    this.transactions.immediate(() => {
      change();
      this.sessions.endOtherSessions(actor.user.id, actor.sessionUid);
      this.grants.deleteOthers(actor.user.id, actor.grantKey);
      this.notifier.queue(actor.user, event, { userAgent: actor.userAgent, at: this.now() });
    });
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
  private reserveCodeAttempt(userId: string): Reservation {
    return this.wrongCodes.reserveOrThrow(userId, tooManyWrongCodes);
  }

  private codeAccepted(userId: string): void {
    this.wrongCodes.clear(userId);
  }

  /** The reserved attempt stays counted; the one that reaches the limit locks and tells the account holder. */
  private wrongCode(user: User, userAgent: string | undefined, attempt: Reservation): never {
    if (this.wrongCodes.locks(attempt)) {
      const event = {
        type: 'account-locked',
        reason: 'verification-code',
        until: this.wrongCodes.lockedUntil(user.id),
      } as const;
      const now = this.now();
      if (!this.notifier.queuedSince(user.id, event, now - WRONG_CODE_LIMIT.windowMs)) {
        this.notifier.queue(user, event, { userAgent, at: now });
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
  private useEmailCode(user: User, purpose: CodePurpose, code: string): boolean {
    const stored = this.store.emailCode(user.id);
    const entered = code.replace(/\s+/g, '');
    const hash = this.codeHash(user.id, purpose, entered);
    const matches =
      stored !== undefined &&
      stored.purpose === purpose &&
      stored.expiresAt > this.now() &&
      /^\d+$/.test(entered) &&
      timingSafeEqual(Buffer.from(stored.codeHash, 'hex'), Buffer.from(hash, 'hex'));
    // Deleting by hash makes the use single even if two requests race.
    return matches && this.store.consumeEmailCode(user.id, hash);
  }

  /** Sends a new email code (replacing any earlier one); at most one send per user every 30 seconds. */
  async sendEmailCode(user: User, purpose: CodePurpose): Promise<string> {
    const send = this.emailSends.reserveOrThrow(user.id, (wait) =>
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
      this.emailSends.undo(send);
      if (this.mailer.transport === 'none' && error instanceof MailError) {
        throw new HttpError(503, error.message);
      }
      this.log?.warn({ err: error }, 'verification email not sent');
      throw new HttpError(502, 'The verification email could not be sent. Try again in a moment.');
    }
    this.store.putEmailCode({
      userId: user.id,
      purpose,
      codeHash: this.codeHash(user.id, purpose, code),
      sentAt: now,
      expiresAt: now + EMAIL_CODE_TTL_MS,
    });
    return maskEmail(user.email);
  }

  // ---- Verification (step-up and sign-in) -----------------------------------------------------------------

  private activeRow(user: User, type: FactorName): FactorRecord {
    const row = this.store.factor(user.id, type);
    if (row?.status !== 'ACTIVE') {
      throw refusal(API_ERRORS.factorState, `${FACTOR_LABELS[type]} is not turned on for this account`);
    }
    return row;
  }

  /** Sends a step-up / sign-in code by email; the email factor must be active. */
  async sendVerificationEmail(user: User): Promise<string> {
    this.activeRow(user, 'email');
    return this.sendEmailCode(user, 'verify');
  }

  /** Checks a code of an active factor. Throws 400 INVALID_CODE_ERROR, or 429 when throttled. */
  verifyCode(user: User, type: FactorName, code: string, userAgent?: string): void {
    const row = this.activeRow(user, type);
    const attempt = this.reserveCodeAttempt(user.id);
    if (type === 'googleAuth') {
      const step = this.totpStep(user, row, code);
      if (step === null) this.wrongCode(user, userAgent, attempt);
      this.store.setLastStep(user.id, type, step);
    } else if (!this.useEmailCode(user, 'verify', code)) {
      this.wrongCode(user, userAgent, attempt);
    }
    this.codeAccepted(user.id);
  }

  /**
   * Sign-in's second step: the code may come from the authenticator app or from an email the user asked for.
   * One wrong code counts once, whichever factors it was tried against. Returns the factor that matched.
   */
  verifyAnyFactor(user: User, code: string, userAgent?: string): FactorName {
    const rows = this.store.factors(user.id).filter((row) => row.status === 'ACTIVE');
    if (rows.length === 0) throw refusal(API_ERRORS.factorState, 'This account has no active 2-step factor');
    const attempt = this.reserveCodeAttempt(user.id);
    for (const row of rows) {
      if (row.type === 'googleAuth') {
        const step = this.totpStep(user, row, code);
        if (step !== null) {
          this.store.setLastStep(user.id, row.type, step);
          this.codeAccepted(user.id);
          return row.type;
        }
      } else if (this.useEmailCode(user, 'verify', code)) {
        this.codeAccepted(user.id);
        return row.type;
      }
    }
    this.wrongCode(user, userAgent, attempt);
  }

  /** Step-up verify: a correct code grants this sign-in session 5 minutes. Returns the end (ms). */
  stepUp(actor: Actor, type: FactorName, code: string): number {
    this.verifyCode(actor.user, type, code, actor.userAgent);
    return this.grant(actor.user.id, actor.grantKey, type);
  }

  // ---- Enrolment ------------------------------------------------------------------------------------------

  private refuseIfEnrolled(userId: string, type: FactorName): void {
    const status = statusOf(this.store.factor(userId, type));
    if (status === 'ACTIVE' || status === 'INACTIVE') {
      throw refusal(
        API_ERRORS.factorState,
        `${FACTOR_LABELS[type]} is already set up; remove it first to set it up again`,
      );
    }
  }

  /** A new secret (replacing a pending one); the factor stays pending until a correct code activates it. */
  enrollGoogle(actor: Actor): GoogleEnrollResponse {
    const { user } = actor;
    this.requireFreshProof(actor);
    this.refuseIfEnrolled(user.id, 'googleAuth');
    const secret = newTotpSecret();
    this.store.putPending(user.id, 'googleAuth', this.box.seal(secret, user.id), this.now());
    return { qrLink: totpUri(secret, user.email), secret };
  }

  /** Sends an activation code to the account's email and marks the email factor pending. */
  async enrollEmail(actor: Actor): Promise<FactorStatus> {
    const { user } = actor;
    this.requireFreshProof(actor);
    this.refuseIfEnrolled(user.id, 'email');
    await this.sendEmailCode(user, 'activate');
    this.store.putPending(user.id, 'email', null, this.now());
    return 'PENDING_ACTIVATION';
  }

  /**
   * A correct code activates a pending factor. It also proves possession of the new factor, so the session
   * gets a step-up grant: a user who just set up their first factor can go on to manage it.
   */
  activate(actor: Actor, type: FactorName, code: string): FactorStatusResponse {
    const { user } = actor;
    this.requireFreshProof(actor);
    const row = this.store.factor(user.id, type);
    if (row?.status !== 'PENDING_ACTIVATION') {
      throw refusal(
        API_ERRORS.factorState,
        row ? `${FACTOR_LABELS[type]} is already set up` : `Start setting up ${FACTOR_LABELS[type]} first`,
      );
    }
    const attempt = this.reserveCodeAttempt(user.id);
    let step: number | null = null;
    if (type === 'googleAuth') {
      step = this.totpStep(user, row, code);
      if (step === null) this.wrongCode(user, actor.userAgent, attempt);
    } else if (!this.useEmailCode(user, 'activate', code)) {
      this.wrongCode(user, actor.userAgent, attempt);
    }
    this.commitFactorChange(actor, { type: 'factor-activated', factor: type }, () => {
      this.codeAccepted(user.id);
      this.store.activate(user.id, type, step, this.now());
      this.grant(user.id, actor.grantKey, type);
    });
    return this.statusResponse(user.id, type);
  }

  // ---- Turning on and off, removal ------------------------------------------------------------------------

  optIn(actor: Actor, type: FactorName): FactorStatusResponse {
    const { user } = actor;
    this.requireFreshProof(actor);
    const status = statusOf(this.store.factor(user.id, type));
    if (status === 'INACTIVE') {
      this.commitFactorChange(actor, { type: 'factor-turned-on', factor: type }, () =>
        this.store.setStatus(user.id, type, 'ACTIVE', this.now()),
      );
    } else if (status !== 'ACTIVE') {
      throw refusal(API_ERRORS.factorState, `Set up ${FACTOR_LABELS[type]} before turning it on`);
    }
    return this.statusResponse(user.id, type);
  }

  private refuseLastFactor(userId: string, type: FactorName, action: string): void {
    const active = this.activeTypes(userId);
    if (active.includes(type) && active.length < MIN_ACTIVE_FACTORS_TO_TURN_OFF) {
      throw refusal(
        API_ERRORS.lastFactor,
        `You cannot ${action} your only active 2-step factor: at least ${MIN_ACTIVE_FACTORS_TO_TURN_OFF} active factors are required. Set up another factor first.`,
      );
    }
  }

  optOut(actor: Actor, type: FactorName): FactorStatusResponse {
    const { user } = actor;
    const status = statusOf(this.store.factor(user.id, type));
    if (status === 'NOT_ENROLLED' || status === 'PENDING_ACTIVATION') {
      throw refusal(API_ERRORS.factorState, `${FACTOR_LABELS[type]} is not set up`);
    }
    this.refuseLastFactor(user.id, type, 'turn off');
    if (status === 'ACTIVE') {
      this.commitFactorChange(actor, { type: 'factor-turned-off', factor: type }, () =>
        this.store.setStatus(user.id, type, 'INACTIVE', this.now()),
      );
    }
    return this.statusResponse(user.id, type);
  }

  reset(actor: Actor, type: FactorName): FactorStatusResponse {
    const { user } = actor;
    const status = statusOf(this.store.factor(user.id, type));
    if (status === 'NOT_ENROLLED') return this.statusResponse(user.id, type);
    this.refuseLastFactor(user.id, type, 'remove');
    const remove = () => {
      this.store.deleteFactor(user.id, type);
      if (type === 'email') this.store.deleteEmailCode(user.id);
    };
    // A set-up that never finished is no factor yet: nothing to end or tell.
    if (status === 'PENDING_ACTIVATION') remove();
    else this.commitFactorChange(actor, { type: 'factor-removed', factor: type }, remove);
    return this.statusResponse(user.id, type);
  }

  /** Housekeeping: expired grants and codes, throttle events that no longer count. */
  prune(): number {
    const now = this.now();
    return (
      this.grants.prune(now) + this.store.pruneCodes(now) + this.wrongCodes.prune() + this.emailSends.prune()
    );
  }
}
