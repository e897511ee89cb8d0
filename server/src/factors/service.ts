import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import {
  API_ERROR_CODES,
  INVALID_CODE_ERROR,
  maskEmail,
  REAUTHENTICATION_REQUIRED_ERROR,
  MIN_ACTIVE_FACTORS_TO_TURN_OFF,
  STEP_UP_REQUIRED_ERROR,
  STEP_UP_TTL_MS,
  type ActiveFactorsData,
  type FactorDetailsResponse,
  type FactorStatus,
  type FactorStatusResponse,
  type GoogleEnrollResponse,
} from 'shared-auth/contract';
import type { AccountSessions } from '../auth/sessions.js';
import type { Db } from '../db/connection.js';
import type { User } from '../directory/directory.js';
import { HttpError } from '../http/errors.js';
import type { AccountEvent, Notifier } from '../notifications/types.js';
import { MailError, type Mailer } from '../mail/mailer.js';
import { deriveKey, type SecretBox } from './secret-box.js';
import type { CodePurpose, FactorRow, FactorStore, FactorType, GrantProof } from './store.js';
import {
  describeWait,
  EMAIL_SEND_INTERVAL_MS,
  MAX_WRONG_CODES,
  WindowThrottle,
  WRONG_CODE_WINDOW_MS,
} from './throttle.js';
import { checkTotp, newTotpSecret, totpUri } from './totp.js';

/** Email codes: 6 random digits, valid for 10 minutes, single use; a new send replaces the previous one. */
export const EMAIL_CODE_TTL_MS = 10 * 60 * 1000;
export const EMAIL_CODE_DIGITS = 6;

const FACTOR_NAMES: Record<FactorType, string> = {
  'google-auth': 'Google Authenticator',
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
  /** For the transactions that change a factor, end the other sessions and queue the notice together. */
  db: Db;
  store: FactorStore;
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
  return new HttpError(
    429,
    `Too many wrong codes. For your security, try again in ${describeWait(waitMs)}.`,
    { 'Retry-After': String(Math.max(1, Math.ceil(waitMs / 1000))) },
  );
}

function statusOf(row: FactorRow | undefined): FactorStatus {
  return row?.status ?? 'NOT_ENROLLED';
}

/**
 * Everything the server decides about 2-step factors: enrolment, activation, opt-in/out, removal, step-up
 * verification and its grants, email codes, and the throttles. The API routes and the sign-in step both use
 * it, so the rules are the same everywhere. Refusals are HttpErrors with a message safe to show.
 */
export class FactorService {
  private readonly db: Db;
  private readonly sessions: AccountSessions;
  private readonly notifier: Notifier;
  private readonly store: FactorStore;
  private readonly box: SecretBox;
  private readonly codeKey: Buffer;
  private readonly mailer: Mailer;
  private readonly now: () => number;
  private readonly log: FactorServiceOptions['log'];
  readonly wrongCodes: WindowThrottle;
  readonly emailSends: WindowThrottle;

  constructor({ db, store, sessions, notifier, box, key, mailer, now, log }: FactorServiceOptions) {
    this.db = db;
    this.sessions = sessions;
    this.notifier = notifier;
    this.log = log;
    this.store = store;
    this.box = box;
    this.codeKey = deriveKey(key, 'portal email verification codes');
    this.mailer = mailer;
    this.now = now;
    this.wrongCodes = new WindowThrottle(store, 'wrong-code', MAX_WRONG_CODES, WRONG_CODE_WINDOW_MS, now);
    this.emailSends = new WindowThrottle(store, 'email-send', 1, EMAIL_SEND_INTERVAL_MS, now);
  }

  // ---- Reading --------------------------------------------------------------------------------------------

  activeTypes(userId: string): FactorType[] {
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
      if (type === 'google-auth') data.googleAuth = {};
      if (type === 'email') data.email = { maskedEmail: maskEmail(user.email) };
    }
    return data;
  }

  details(userId: string, type: FactorType): FactorDetailsResponse {
    const row = this.store.factor(userId, type);
    const enrolled = row?.status === 'ACTIVE' || row?.status === 'INACTIVE';
    return { enrolled, enrolledDate: enrolled ? (row?.enrolled_at ?? null) : null };
  }

  private statusResponse(userId: string, type: FactorType): FactorStatusResponse {
    const row = this.store.factor(userId, type);
    return { status: statusOf(row), enrolledDate: row?.enrolled_at ?? null };
  }

  // ---- Step-up grants -------------------------------------------------------------------------------------

  /** When the session's step-up ends (ms), or undefined when it has none that is still valid. */
  grantExpiry(userId: string, sessionId: string): number | undefined {
    return this.store.grantExpiry(userId, sessionId, this.now());
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
    this.store.putGrant(userId, sessionId, proof, expiresAt);
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
    if (recentSignIn || this.store.passwordGrantExpiry(actor.user.id, actor.grantKey, now) !== undefined)
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
    this.store.deleteOtherGrants(userId, keepGrantKey);
  }

  /** Sessions that ended (signed out, revoked) take their grants along; called inside that transaction. */
  endStepUpGrants(userId: string, sessionIds: string[]): void {
    this.store.deleteGrantsOf(userId, sessionIds);
  }

  /**
   * A factor became active, was turned on or off, or was removed: every other session of the account ends
   * (sessions, grants, refresh tokens, step-up grants), the change's notice is queued, all in one transaction
   * with the change itself, so a phishing session that held the password is out the moment 2-step changes.
   */
  private commitFactorChange(actor: Actor, event: AccountEvent, change: () => void): void {
    this.db
      .transaction(() => {
        change();
        this.sessions.endOtherSessions(actor.user.id, actor.sessionUid);
        this.store.deleteOtherGrants(actor.user.id, actor.grantKey);
        this.notifier.queue(actor.user, event, { userAgent: actor.userAgent, at: this.now() });
      })
      .immediate();
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
  private reserveCodeAttempt(userId: string): void {
    this.db
      .transaction(() => {
        const wait = this.wrongCodes.retryAfter(userId);
        if (wait > 0) throw tooManyWrongCodes(wait);
        this.wrongCodes.record(userId);
      })
      .immediate();
  }

  private codeAccepted(userId: string): void {
    this.wrongCodes.clear(userId);
  }

  /** The reserved attempt stays counted; the one that reaches the limit locks and tells the account holder. */
  private wrongCode(user: User, userAgent: string | undefined): never {
    if (this.wrongCodes.count(user.id) >= MAX_WRONG_CODES) {
      const event = {
        type: 'account-locked',
        reason: 'verification-code',
        until: this.wrongCodes.lockedUntil(user.id),
      } as const;
      const now = this.now();
      if (!this.notifier.queuedSince(user.id, event, now - WRONG_CODE_WINDOW_MS)) {
        this.notifier.queue(user, event, { userAgent, at: now });
      }
    }
    throw new HttpError(400, INVALID_CODE_ERROR);
  }

  /** The TOTP step the code belongs to, or null when it is wrong or a replay. */
  private totpStep(user: User, row: FactorRow, code: string): number | null {
    let secret: string;
    try {
      if (!row.secret_enc) throw new Error('no secret stored');
      secret = this.box.open(row.secret_enc, user.id);
    } catch (error) {
      // A key that does not match the sealed secrets (start-up refuses that) or a damaged row: the attempt is
      // already counted, and the answer says the check is unavailable rather than wrong.
      this.log?.error({ err: error, userId: user.id }, 'authenticator secret cannot be opened');
      throw new HttpError(503, 'Authenticator codes cannot be checked right now. Try again later.', {
        'Retry-After': '60',
      });
    }
    const result = checkTotp(secret, code, this.now(), row.last_step);
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
      stored.expires_at > this.now() &&
      /^\d+$/.test(entered) &&
      timingSafeEqual(Buffer.from(stored.code_hash, 'hex'), Buffer.from(hash, 'hex'));
    // Deleting by hash makes the use single even if two requests race.
    return matches && this.store.consumeEmailCode(user.id, hash);
  }

  /** Sends a new email code (replacing any earlier one); at most one send per user every 30 seconds. */
  async sendEmailCode(user: User, purpose: CodePurpose): Promise<string> {
    const wait = this.emailSends.retryAfter(user.id);
    if (wait > 0) {
      throw new HttpError(
        429,
        `A code was sent less than 30 seconds ago. Wait ${describeWait(wait)} before asking for another.`,
        { 'Retry-After': String(Math.max(1, Math.ceil(wait / 1000))) },
      );
    }
    const sentAt = this.emailSends.record(user.id);
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
      this.emailSends.undo(user.id, sentAt);
      if (this.mailer.transport === 'none' && error instanceof MailError) {
        throw new HttpError(503, error.message);
      }
      this.log?.warn({ err: error }, 'verification email not sent');
      throw new HttpError(502, 'The verification email could not be sent. Try again in a moment.');
    }
    this.store.putEmailCode({
      user_id: user.id,
      purpose,
      code_hash: this.codeHash(user.id, purpose, code),
      sent_at: now,
      expires_at: now + EMAIL_CODE_TTL_MS,
    });
    return maskEmail(user.email);
  }

  // ---- Verification (step-up and sign-in) -----------------------------------------------------------------

  private activeRow(user: User, type: FactorType): FactorRow {
    const row = this.store.factor(user.id, type);
    if (row?.status !== 'ACTIVE') {
      throw new HttpError(409, `${FACTOR_NAMES[type]} is not turned on for this account`);
    }
    return row;
  }

  /** Sends a step-up / sign-in code by email; the email factor must be active. */
  async sendVerificationEmail(user: User): Promise<string> {
    this.activeRow(user, 'email');
    return this.sendEmailCode(user, 'verify');
  }

  /** Checks a code of an active factor. Throws 400 INVALID_CODE_ERROR, or 429 when throttled. */
  verifyCode(user: User, type: FactorType, code: string, userAgent?: string): void {
    const row = this.activeRow(user, type);
    this.reserveCodeAttempt(user.id);
    if (type === 'google-auth') {
      const step = this.totpStep(user, row, code);
      if (step === null) this.wrongCode(user, userAgent);
      this.store.setLastStep(user.id, type, step);
    } else if (!this.useEmailCode(user, 'verify', code)) {
      this.wrongCode(user, userAgent);
    }
    this.codeAccepted(user.id);
  }

  /**
   * Sign-in's second step: the code may come from the authenticator app or from an email the user asked for.
   * One wrong code counts once, whichever factors it was tried against. Returns the factor that matched.
   */
  verifyAnyFactor(user: User, code: string, userAgent?: string): FactorType {
    const rows = this.store.factors(user.id).filter((row) => row.status === 'ACTIVE');
    if (rows.length === 0) throw new HttpError(409, 'This account has no active 2-step factor');
    this.reserveCodeAttempt(user.id);
    for (const row of rows) {
      if (row.type === 'google-auth') {
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
    this.wrongCode(user, userAgent);
  }

  /** Step-up verify: a correct code grants this sign-in session 5 minutes. Returns the end (ms). */
  stepUp(actor: Actor, type: FactorType, code: string): number {
    this.verifyCode(actor.user, type, code, actor.userAgent);
    return this.grant(actor.user.id, actor.grantKey, type);
  }

  // ---- Enrolment ------------------------------------------------------------------------------------------

  private refuseIfEnrolled(userId: string, type: FactorType): void {
    const status = statusOf(this.store.factor(userId, type));
    if (status === 'ACTIVE' || status === 'INACTIVE') {
      throw new HttpError(409, `${FACTOR_NAMES[type]} is already set up; remove it first to set it up again`);
    }
  }

  /** A new secret (replacing a pending one); the factor stays pending until a correct code activates it. */
  enrollGoogle(actor: Actor): GoogleEnrollResponse {
    const { user } = actor;
    this.requireFreshProof(actor);
    this.refuseIfEnrolled(user.id, 'google-auth');
    const secret = newTotpSecret();
    this.store.putPending(user.id, 'google-auth', this.box.seal(secret, user.id), this.now());
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
  activate(actor: Actor, type: FactorType, code: string): FactorStatusResponse {
    const { user } = actor;
    this.requireFreshProof(actor);
    const row = this.store.factor(user.id, type);
    if (row?.status !== 'PENDING_ACTIVATION') {
      throw new HttpError(
        409,
        row ? `${FACTOR_NAMES[type]} is already set up` : `Start setting up ${FACTOR_NAMES[type]} first`,
      );
    }
    this.reserveCodeAttempt(user.id);
    let step: number | null = null;
    if (type === 'google-auth') {
      step = this.totpStep(user, row, code);
      if (step === null) this.wrongCode(user, actor.userAgent);
    } else if (!this.useEmailCode(user, 'activate', code)) {
      this.wrongCode(user, actor.userAgent);
    }
    this.commitFactorChange(actor, { type: 'factor-activated', factor: type }, () => {
      this.codeAccepted(user.id);
      this.store.activate(user.id, type, step, this.now());
      this.grant(user.id, actor.grantKey, type);
    });
    return this.statusResponse(user.id, type);
  }

  // ---- Turning on and off, removal ------------------------------------------------------------------------

  optIn(actor: Actor, type: FactorType): FactorStatusResponse {
    const { user } = actor;
    this.requireFreshProof(actor);
    const status = statusOf(this.store.factor(user.id, type));
    if (status === 'INACTIVE') {
      this.commitFactorChange(actor, { type: 'factor-turned-on', factor: type }, () =>
        this.store.setStatus(user.id, type, 'ACTIVE', this.now()),
      );
    } else if (status !== 'ACTIVE') {
      throw new HttpError(409, `Set up ${FACTOR_NAMES[type]} before turning it on`);
    }
    return this.statusResponse(user.id, type);
  }

  private refuseLastFactor(userId: string, type: FactorType, action: string): void {
    const active = this.activeTypes(userId);
    if (active.includes(type) && active.length < MIN_ACTIVE_FACTORS_TO_TURN_OFF) {
      throw new HttpError(
        409,
        `You cannot ${action} your only active 2-step factor: at least ${MIN_ACTIVE_FACTORS_TO_TURN_OFF} active factors are required. Set up another factor first.`,
      );
    }
  }

  optOut(actor: Actor, type: FactorType): FactorStatusResponse {
    const { user } = actor;
    const status = statusOf(this.store.factor(user.id, type));
    if (status === 'NOT_ENROLLED' || status === 'PENDING_ACTIVATION') {
      throw new HttpError(409, `${FACTOR_NAMES[type]} is not set up`);
    }
    this.refuseLastFactor(user.id, type, 'turn off');
    if (status === 'ACTIVE') {
      this.commitFactorChange(actor, { type: 'factor-turned-off', factor: type }, () =>
        this.store.setStatus(user.id, type, 'INACTIVE', this.now()),
      );
    }
    return this.statusResponse(user.id, type);
  }

  reset(actor: Actor, type: FactorType): FactorStatusResponse {
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
    return this.store.prune(now, now - Math.max(WRONG_CODE_WINDOW_MS, EMAIL_SEND_INTERVAL_MS));
  }
}
