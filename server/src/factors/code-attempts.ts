/**
 * The throttles of 2-step codes, shared by the step-up and the factors' set-up: wrong codes per user (a lock
 * that tells the account holder) and email sends per user (one every 30 seconds). Limits: throttles/limits.ts.
 */
import { API_ERRORS, INVALID_CODE_ERROR } from 'shared-auth/contract';
import { refusal, type HttpError } from '../http/errors.js';
import type { Notifier } from '../notifications/types.js';
import type { Storage } from '../storage/index.js';
import type { User } from '../storage/users.js';
import { EMAIL_SEND_LIMIT, WRONG_CODE_LIMIT } from '../throttles/limits.js';
import { describeWait, Throttle, tooManyRequests, type Reservation } from '../throttles/throttle.js';

function tooManyWrongCodes(waitMs: number): HttpError {
  return tooManyRequests(
    `Too many wrong codes. For your security, try again in ${describeWait(waitMs)}.`,
    waitMs,
  );
}

export interface CodeAttemptsOptions {
  storage: Storage;
  notifier: Notifier;
  now: () => number;
  /** Where a throttle count that could not be taken back is logged (the app's logger). */
  log?: { warn(object: object, message: string): void } | undefined;
}

export class CodeAttempts {
  readonly wrongCodes: Throttle;
  readonly emailSends: Throttle;
  private readonly storage: Storage;
  private readonly notifier: Notifier;
  private readonly now: () => number;
  private readonly log: CodeAttemptsOptions['log'];

  constructor({ storage, notifier, now, log }: CodeAttemptsOptions) {
    this.storage = storage;
    this.notifier = notifier;
    this.now = now;
    this.log = log;
    this.wrongCodes = new Throttle(storage.throttles.wrongCodes, WRONG_CODE_LIMIT, now);
    this.emailSends = new Throttle(storage.throttles.emailSends, EMAIL_SEND_LIMIT, now);
  }

  /**
   * Counts the attempt before the code is checked (a correct code takes it back): when the attempt cannot be
   * recorded (a full or read-only disk), the storage error answers 503 before anything was checked, the same
   * whatever was guessed. At the limit: 429.
   */
  reserve(userId: string): Promise<Reservation> {
    return this.wrongCodes.reserveOrThrow(userId, tooManyWrongCodes);
  }

  async accepted(userId: string, within: Storage = this.storage): Promise<void> {
    await within.throttles.wrongCodes.clear(userId);
  }

  /** The reserved attempt stays counted; the one that reaches the limit locks and tells the account holder. */
  async wrong(user: User, userAgent: string | undefined, attempt: Reservation): Promise<never> {
    await this.stayCounted(user, userAgent, attempt);
    throw refusal(API_ERRORS.invalidCode, INVALID_CODE_ERROR);
  }

  /** `wrong` without the refusal: for a caller that answers a wrong code its own way (a recovery code's use). */
  async stayCounted(user: User, userAgent: string | undefined, attempt: Reservation): Promise<void> {
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
  }

  /**
   * A code is sent by email (the backend sends it): at most one send per user every 30 seconds, counted before
   * the send and taken back when the send fails.
   */
  async countedSend<T>(userId: string, send: () => Promise<T>): Promise<T> {
    const reservation = await this.emailSends.reserveOrThrow(userId, (wait) =>
      tooManyRequests(
        `A code was sent less than 30 seconds ago. Wait ${describeWait(wait)} before asking for another.`,
        wait,
      ),
    );
    try {
      return await send();
    } catch (error) {
      await this.emailSends.undo(reservation).catch((undoError: unknown) => {
        this.log?.warn({ err: undoError }, 'email send count not taken back');
      });
      throw error;
    }
  }

  /** Housekeeping: throttle events that no longer count. */
  async prune(): Promise<number> {
    return (await this.wrongCodes.prune()) + (await this.emailSends.prune());
  }
}
