import type { Db } from '../db/connection.js';
import { HttpError } from '../http/errors.js';
import { PASSWORD_CHANGE_ERRORS } from 'shared-auth/contract';

/**
 * Wrong passwords per user given to a signed-in call (PUT /api/password/:sub/change and
 * POST /api/stepup/:sub/reauthenticate): after MAX_FAILURES within WINDOW_MS, every such attempt of that user
 * (even with the right password) is refused with 429 until the oldest of those failures leaves the window. A
 * correct password clears the count. Stricter than sign-in (10 per 15 minutes) because the caller already holds
 * a valid access token: this guards against someone at an unlocked, signed-in browser guessing the password.
 *
 * Each attempt is reserved (recorded as a failure) BEFORE the argon2 check and taken back when the password was
 * right, so a parallel burst gets at most the limit checked, and an attempt that cannot be recorded (full or
 * read-only disk) is refused with the storage error (503) before anything is checked.
 *
 * Kept in SQLite (migration 003), so a restart does not reset it.
 */
export const PASSWORD_CHANGE_MAX_FAILURES = 5;
export const PASSWORD_CHANGE_WINDOW_MS = 15 * 60 * 1000;

export interface PasswordChangeThrottleOptions {
  maxFailures?: number;
  windowMs?: number;
  /** The clock, in ms since the epoch; tests pass a fake one. */
  now?: () => number;
}

export class PasswordChangeThrottle {
  private readonly statements;
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly reserveAttempt;

  constructor(db: Db, options: PasswordChangeThrottleOptions = {}) {
    this.maxFailures = options.maxFailures ?? PASSWORD_CHANGE_MAX_FAILURES;
    this.windowMs = options.windowMs ?? PASSWORD_CHANGE_WINDOW_MS;
    this.now = options.now ?? Date.now;
    this.statements = {
      // The newest failures inside the window, newest first, at most maxFailures of them.
      recent: db.prepare<[string, number, number], { failed_at: number }>(
        `SELECT failed_at FROM password_change_failures WHERE user_id = ? AND failed_at > ?
         ORDER BY failed_at DESC LIMIT ?`,
      ),
      insert: db.prepare('INSERT INTO password_change_failures (user_id, failed_at) VALUES (?, ?)'),
      pruneUser: db.prepare('DELETE FROM password_change_failures WHERE user_id = ? AND failed_at <= ?'),
      clear: db.prepare('DELETE FROM password_change_failures WHERE user_id = ?'),
    };
    // IMMEDIATE: the check and the record are one step for every process that shares the file.
    this.reserveAttempt = db.transaction((userId: string) => {
      const waitMs = this.retryAfterMs(userId);
      if (waitMs > 0) {
        const seconds = Math.ceil(waitMs / 1000);
        throw new HttpError(429, PASSWORD_CHANGE_ERRORS.throttled(seconds), {
          'Retry-After': String(seconds),
        });
      }
      const now = this.now();
      this.statements.pruneUser.run(userId, now - this.windowMs);
      this.statements.insert.run(userId, now);
    });
  }

  /** Milliseconds until this user may try again; 0 when they may try now. */
  retryAfterMs(userId: string): number {
    const now = this.now();
    const recent = this.statements.recent.all(userId, now - this.windowMs, this.maxFailures);
    if (recent.length < this.maxFailures) return 0;
    // The oldest of the last maxFailures failures: once it leaves the window, one attempt is free again.
    const oldest = recent[recent.length - 1]?.failed_at ?? now;
    return Math.max(0, oldest + this.windowMs - now);
  }

  /**
   * Counts one attempt before the password is checked; throws the 429 HttpError at the limit. A wrong password
   * leaves it counted; a right one calls `clear`. Returns whether this attempt, if wrong, locks the user out
   * (it is the one that reaches the limit), so the caller can tell the account holder.
   */
  reserve(userId: string): { locksIfWrong: boolean; lockedUntil: () => number } {
    this.reserveAttempt.immediate(userId);
    return {
      locksIfWrong: this.retryAfterMs(userId) > 0,
      lockedUntil: () => this.now() + this.retryAfterMs(userId),
    };
  }

  /** After a correct password. Synchronous: may run inside the change's transaction. */
  clear(userId: string): void {
    this.statements.clear.run(userId);
  }
}
