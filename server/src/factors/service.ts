import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import {
  INVALID_CODE_ERROR,
  maskEmail,
  MIN_ACTIVE_FACTORS_TO_TURN_OFF,
  STEP_UP_REQUIRED_ERROR,
  STEP_UP_TTL_MS,
  type ActiveFactorsData,
  type FactorDetailsResponse,
  type FactorStatus,
  type FactorStatusResponse,
  type GoogleEnrollResponse,
} from 'shared-auth/contract';
import type { User } from '../directory/directory.js';
import { HttpError } from '../http/errors.js';
import { MailError, type Mailer } from '../mail/mailer.js';
import { deriveKey, type SecretBox } from './secret-box.js';
import type { CodePurpose, FactorRow, FactorStore, FactorType } from './store.js';
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

export interface FactorServiceOptions {
  store: FactorStore;
  box: SecretBox;
  /** The 32-byte configured key; email codes are hashed with a key derived from it. */
  key: Buffer;
  mailer: Mailer;
  now: () => number;
  /** Where delivery failures are logged (the app's logger). */
  log?: { warn(object: object, message: string): void };
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
  private readonly store: FactorStore;
  private readonly box: SecretBox;
  private readonly codeKey: Buffer;
  private readonly mailer: Mailer;
  private readonly now: () => number;
  private readonly log: FactorServiceOptions['log'];
  readonly wrongCodes: WindowThrottle;
  readonly emailSends: WindowThrottle;

  constructor({ store, box, key, mailer, now, log }: FactorServiceOptions) {
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
    if (this.needsStepUp(userId, sessionId)) {
      throw new HttpError(
        403,
        `${STEP_UP_REQUIRED_ERROR}: verify with one of your 2-step factors first (a verification lasts 5 minutes).`,
      );
    }
  }

  private grant(userId: string, sessionId: string, factor: FactorType): number {
    const expiresAt = this.now() + STEP_UP_TTL_MS;
    this.store.putGrant(userId, sessionId, factor, expiresAt);
    return expiresAt;
  }

  // ---- Codes ----------------------------------------------------------------------------------------------

  private codeHash(userId: string, purpose: CodePurpose, code: string): string {
    return createHmac('sha256', this.codeKey).update(`${userId}\n${purpose}\n${code}`).digest('hex');
  }

  private throttleCodes(userId: string): void {
    const wait = this.wrongCodes.retryAfter(userId);
    if (wait > 0) throw tooManyWrongCodes(wait);
  }

  private wrongCode(userId: string): never {
    // Counted: after MAX_WRONG_CODES of them in the window, the next attempt is refused with 429.
    this.wrongCodes.record(userId);
    throw new HttpError(400, INVALID_CODE_ERROR);
  }

  /** The TOTP step the code belongs to, or null when it is wrong or a replay. */
  private totpStep(user: User, row: FactorRow, code: string): number | null {
    if (!row.secret_enc) throw new Error(`Authenticator factor of ${user.id} has no secret`);
    const secret = this.box.open(row.secret_enc, user.id);
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
  verifyCode(user: User, type: FactorType, code: string): void {
    const row = this.activeRow(user, type);
    this.throttleCodes(user.id);
    if (type === 'google-auth') {
      const step = this.totpStep(user, row, code);
      if (step === null) this.wrongCode(user.id);
      this.store.setLastStep(user.id, type, step);
    } else if (!this.useEmailCode(user, 'verify', code)) {
      this.wrongCode(user.id);
    }
    this.wrongCodes.clear(user.id);
  }

  /**
   * Sign-in's second step: the code may come from the authenticator app or from an email the user asked for.
   * One wrong code counts once, whichever factors it was tried against. Returns the factor that matched.
   */
  verifyAnyFactor(user: User, code: string): FactorType {
    const rows = this.store.factors(user.id).filter((row) => row.status === 'ACTIVE');
    if (rows.length === 0) throw new HttpError(409, 'This account has no active 2-step factor');
    this.throttleCodes(user.id);
    for (const row of rows) {
      if (row.type === 'google-auth') {
        const step = this.totpStep(user, row, code);
        if (step !== null) {
          this.store.setLastStep(user.id, row.type, step);
          this.wrongCodes.clear(user.id);
          return row.type;
        }
      } else if (this.useEmailCode(user, 'verify', code)) {
        this.wrongCodes.clear(user.id);
        return row.type;
      }
    }
    this.wrongCode(user.id);
  }

  /** Step-up verify: a correct code grants this sign-in session 5 minutes. Returns the end (ms). */
  stepUp(user: User, sessionId: string, type: FactorType, code: string): number {
    this.verifyCode(user, type, code);
    return this.grant(user.id, sessionId, type);
  }

  // ---- Enrolment ------------------------------------------------------------------------------------------

  private refuseIfEnrolled(userId: string, type: FactorType): void {
    const status = statusOf(this.store.factor(userId, type));
    if (status === 'ACTIVE' || status === 'INACTIVE') {
      throw new HttpError(409, `${FACTOR_NAMES[type]} is already set up; remove it first to set it up again`);
    }
  }

  /** A new secret (replacing a pending one); the factor stays pending until a correct code activates it. */
  enrollGoogle(user: User): GoogleEnrollResponse {
    this.refuseIfEnrolled(user.id, 'google-auth');
    const secret = newTotpSecret();
    this.store.putPending(user.id, 'google-auth', this.box.seal(secret, user.id), this.now());
    return { qrLink: totpUri(secret, user.email), secret };
  }

  /** Sends an activation code to the account's email and marks the email factor pending. */
  async enrollEmail(user: User): Promise<FactorStatus> {
    this.refuseIfEnrolled(user.id, 'email');
    await this.sendEmailCode(user, 'activate');
    this.store.putPending(user.id, 'email', null, this.now());
    return 'PENDING_ACTIVATION';
  }

  /**
   * A correct code activates a pending factor. It also proves possession of the new factor, so the session
   * gets a step-up grant: a user who just set up their first factor can go on to manage it.
   */
  activate(user: User, sessionId: string, type: FactorType, code: string): FactorStatusResponse {
    const row = this.store.factor(user.id, type);
    if (row?.status !== 'PENDING_ACTIVATION') {
      throw new HttpError(
        409,
        row ? `${FACTOR_NAMES[type]} is already set up` : `Start setting up ${FACTOR_NAMES[type]} first`,
      );
    }
    this.throttleCodes(user.id);
    let step: number | null = null;
    if (type === 'google-auth') {
      step = this.totpStep(user, row, code);
      if (step === null) this.wrongCode(user.id);
    } else if (!this.useEmailCode(user, 'activate', code)) {
      this.wrongCode(user.id);
    }
    this.wrongCodes.clear(user.id);
    this.store.activate(user.id, type, step, this.now());
    this.grant(user.id, sessionId, type);
    return this.statusResponse(user.id, type);
  }

  // ---- Turning on and off, removal ------------------------------------------------------------------------

  optIn(user: User, type: FactorType): FactorStatusResponse {
    const status = statusOf(this.store.factor(user.id, type));
    if (status === 'INACTIVE') this.store.setStatus(user.id, type, 'ACTIVE', this.now());
    else if (status !== 'ACTIVE') {
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

  optOut(user: User, type: FactorType): FactorStatusResponse {
    const status = statusOf(this.store.factor(user.id, type));
    if (status === 'NOT_ENROLLED' || status === 'PENDING_ACTIVATION') {
      throw new HttpError(409, `${FACTOR_NAMES[type]} is not set up`);
    }
    this.refuseLastFactor(user.id, type, 'turn off');
    if (status === 'ACTIVE') this.store.setStatus(user.id, type, 'INACTIVE', this.now());
    return this.statusResponse(user.id, type);
  }

  reset(user: User, type: FactorType): FactorStatusResponse {
    const status = statusOf(this.store.factor(user.id, type));
    if (status === 'NOT_ENROLLED') return this.statusResponse(user.id, type);
    this.refuseLastFactor(user.id, type, 'remove');
    this.store.deleteFactor(user.id, type);
    if (type === 'email') this.store.deleteEmailCode(user.id);
    return this.statusResponse(user.id, type);
  }

  /** Housekeeping: expired grants and codes, throttle events that no longer count. */
  prune(): number {
    const now = this.now();
    return this.store.prune(now, now - Math.max(WRONG_CODE_WINDOW_MS, EMAIL_SEND_INTERVAL_MS));
  }
}
