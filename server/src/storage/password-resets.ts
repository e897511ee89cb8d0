/**
 * Password reset links (migration 014's `password_reset_tokens`): the interface and its SQL. Only the token's
 * SHA-256 is stored; the rules (lifetime, single use, binding to the password, a newer link voiding older ones)
 * are password/reset.ts's, the statements here make each of them one atomic step.
 */
import type { Sql } from '../db/sql.js';

/** A live reset link as stored (never the token itself). */
export interface PasswordResetRecord {
  tokenHash: string;
  userId: string;
  /** A fingerprint of the password hash the link was issued under: a changed password no longer matches it. */
  passwordFingerprint: string;
  createdAt: number;
  expiresAt: number;
  /** Posts made with the link so far. */
  attempts: number;
  /** Whether the account's second factor was proven with this link (asked before the new password). */
  factorVerified: boolean;
}

export interface PasswordResetStore {
  /**
   * Stores a new link of the account and deletes its older ones (a newer link voids them), as one step: run it in
   * the transaction that queues its mail.
   */
  issue(record: Omit<PasswordResetRecord, 'attempts' | 'factorVerified'>): Promise<void>;
  /** The link of this token hash, when it has not expired at `now`. */
  find(tokenHash: string, now: number): Promise<PasswordResetRecord | undefined>;
  /**
   * Counts one post made with the link, atomically; answers the count with it, or undefined when the link is no
   * longer there (used, voided, expired at `now`).
   */
  countAttempt(tokenHash: string, now: number): Promise<number | undefined>;
  /** Records that the account's second factor was proven with the link. */
  markFactorVerified(tokenHash: string): Promise<void>;
  /**
   * Uses the link: deletes it when it is still there, unexpired at `now` and issued under `passwordFingerprint`;
   * true when it was (so a link is used once, even by two racing posts).
   */
  consume(tokenHash: string, passwordFingerprint: string, now: number): Promise<boolean>;
  /** Voids every link of the account; returns how many. */
  deleteOf(userId: string): Promise<number>;
  /** Voids one link (too many posts with it). */
  delete(tokenHash: string): Promise<void>;
  /** Deletes the links expired at `now`; returns how many. */
  prune(now: number): Promise<number>;
}

interface Row {
  token_hash: string;
  user_id: string;
  password_fingerprint: string;
  created_at: number;
  expires_at: number;
  attempts: number;
  factor_verified: number;
}

/** Password reset links (migration 014) over `Sql`. */
export class SqlPasswordResetStore implements PasswordResetStore {
  constructor(private readonly sql: Sql) {}

  async issue(record: Omit<PasswordResetRecord, 'attempts' | 'factorVerified'>): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.run('DELETE FROM password_reset_tokens WHERE user_id = ?', [record.userId]);
      await tx.run(
        `INSERT INTO password_reset_tokens (token_hash, user_id, password_fingerprint, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?)`,
        [record.tokenHash, record.userId, record.passwordFingerprint, record.createdAt, record.expiresAt],
      );
    });
  }

  async find(tokenHash: string, now: number): Promise<PasswordResetRecord | undefined> {
    const row = await this.sql.get<Row>(
      'SELECT * FROM password_reset_tokens WHERE token_hash = ? AND expires_at > ?',
      [tokenHash, now],
    );
    return (
      row && {
        tokenHash: row.token_hash,
        userId: row.user_id,
        passwordFingerprint: row.password_fingerprint,
        createdAt: Number(row.created_at),
        expiresAt: Number(row.expires_at),
        attempts: Number(row.attempts),
        factorVerified: Number(row.factor_verified) === 1,
      }
    );
  }

  async countAttempt(tokenHash: string, now: number): Promise<number | undefined> {
    const row = await this.sql.get<{ attempts: number }>(
      `UPDATE password_reset_tokens SET attempts = attempts + 1 WHERE token_hash = ? AND expires_at > ?
       RETURNING attempts`,
      [tokenHash, now],
    );
    return row === undefined ? undefined : Number(row.attempts);
  }

  async markFactorVerified(tokenHash: string): Promise<void> {
    await this.sql.run('UPDATE password_reset_tokens SET factor_verified = 1 WHERE token_hash = ?', [
      tokenHash,
    ]);
  }

  async consume(tokenHash: string, passwordFingerprint: string, now: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      `DELETE FROM password_reset_tokens
       WHERE token_hash = ? AND password_fingerprint = ? AND expires_at > ?`,
      [tokenHash, passwordFingerprint, now],
    );
    return changes === 1;
  }

  async deleteOf(userId: string): Promise<number> {
    return (await this.sql.run('DELETE FROM password_reset_tokens WHERE user_id = ?', [userId])).changes;
  }

  async delete(tokenHash: string): Promise<void> {
    await this.sql.run('DELETE FROM password_reset_tokens WHERE token_hash = ?', [tokenHash]);
  }

  async prune(now: number): Promise<number> {
    return (await this.sql.run('DELETE FROM password_reset_tokens WHERE expires_at <= ?', [now])).changes;
  }
}
