import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { User } from '../../storage/users.js';
import { normaliseCode } from '../../crypto/code.js';
import { deriveKey } from '../../crypto/secret-box.js';
import type { CodePurpose, FactorStore } from '../../storage/factors.js';
import { HttpError } from '../../http/errors.js';
import { MailError, type Mailer } from '../../mail/mailer.js';

/** Email codes: 6 random digits, valid for 10 minutes, single use; a new send replaces the previous one. */
export const EMAIL_CODE_TTL_MS = 10 * 60 * 1000;
export const EMAIL_CODE_DIGITS = 6;

export interface EmailCodesOptions {
  /** The 32-byte configured key (TOTP_ENCRYPTION_KEY); codes are hashed with a key derived from it. */
  key: Buffer;
  mailer: Mailer;
  now: () => number;
  log?: { warn(object: object, message: string): void } | undefined;
}

/**
 * The embedded backend's email codes: made and mailed here, kept as an HMAC (one per user, `email_codes`), used
 * once. The portal's send throttle is its caller's (factors/code-attempts.ts), counted before `send`.
 */
export class EmailCodes {
  private readonly codeKey: Buffer;
  private readonly mailer: Mailer;
  private readonly now: () => number;
  private readonly log: EmailCodesOptions['log'];

  constructor({ key, mailer, now, log }: EmailCodesOptions) {
    this.codeKey = deriveKey(key, 'portal email verification codes');
    this.mailer = mailer;
    this.now = now;
    this.log = log;
  }

  private hash(userId: string, purpose: CodePurpose, code: string): string {
    return createHmac('sha256', this.codeKey).update(`${userId}\n${purpose}\n${code}`).digest('hex');
  }

  /**
   * Mails a new code (replacing any earlier one). No transport: 503 with the mailer's reason; a failed delivery:
   * 502 (logged). The code is stored only once it was sent.
   */
  async send(user: User, purpose: CodePurpose, store: FactorStore): Promise<void> {
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
      if (this.mailer.transport === 'none' && error instanceof MailError) {
        throw new HttpError(503, error.message);
      }
      this.log?.warn({ err: error }, 'verification email not sent');
      throw new HttpError(502, 'The verification email could not be sent. Try again in a moment.');
    }
    await store.putEmailCode({
      userId: user.id,
      purpose,
      codeHash: this.hash(user.id, purpose, code),
      sentAt: now,
      expiresAt: now + EMAIL_CODE_TTL_MS,
    });
  }

  /** True (and the code used up) when it is the user's current email code of this purpose. */
  async use(userId: string, purpose: CodePurpose, code: string, store: FactorStore): Promise<boolean> {
    const stored = await store.emailCode(userId);
    const entered = normaliseCode(code, EMAIL_CODE_DIGITS);
    if (entered === undefined) return false;
    const hash = this.hash(userId, purpose, entered);
    const matches =
      stored !== undefined &&
      stored.purpose === purpose &&
      stored.expiresAt > this.now() &&
      timingSafeEqual(Buffer.from(stored.codeHash, 'hex'), Buffer.from(hash, 'hex'));
    // Deleting by hash makes the use single even if two requests race.
    return matches && (await store.consumeEmailCode(userId, hash));
  }
}
