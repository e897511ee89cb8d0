import type { Db } from '../db/connection.js';

/**
 * Wrong current passwords per user on PUT /api/password/:sub/change: after MAX_FAILURES within WINDOW_MS, every
 * change attempt of that user (even with the right password) is refused with 429 until the oldest of those
 * failures leaves the window. A successful change clears the count. Stricter than sign-in (10 per 15 minutes,
 * Okta locks out after 10) because the caller already holds a valid access token: this guards against
 * someone at an unlocked, signed-in browser guessing the password to take the account over.
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

  recordFailure(userId: string): void {
    const now = this.now();
    this.statements.pruneUser.run(userId, now - this.windowMs);
    this.statements.insert.run(userId, now);
  }

  /** After a successful change. Synchronous: may run inside the change's transaction. */
  clear(userId: string): void {
    this.statements.clear.run(userId);
  }
}
