/**
 * Recovery codes (migration 013's `recovery_codes`): the holder's current set, each code kept only as its keyed
 * hash, with when the set was made and when each code was used. The interface and its SQL; what makes, hashes
 * and checks the codes: factors/recovery-codes.ts.
 */
import type { Sql } from '../db/sql.js';

/** The holder's current set, counted. */
export interface RecoveryCodeSet {
  /** Codes in the set (0 when there is none). */
  total: number;
  /** Codes of the set not used yet. */
  left: number;
  /** When the set was generated (ms), or undefined when there is none. */
  generatedAt: number | undefined;
}

export interface RecoveryCodeStore {
  /** The user's current set, counted. */
  set(userId: string): Promise<RecoveryCodeSet>;
  /**
   * Replaces the user's set with these hashes (a new set voids the old one), in one transaction (the caller's,
   * when it runs in one).
   */
  replace(userId: string, codeHashes: readonly string[], now: number): Promise<void>;
  /**
   * Marks the code of this hash used, if it is in the user's set and unused: true for exactly one caller however
   * many race (a compare-and-set on `used_at`).
   */
  use(userId: string, codeHash: string, now: number): Promise<boolean>;
  /** Deletes the user's set; returns how many codes it had. */
  deleteAll(userId: string): Promise<number>;
}

/** Recovery codes over `Sql`. */
export class SqlRecoveryCodeStore implements RecoveryCodeStore {
  constructor(private readonly sql: Sql) {}

  async set(userId: string): Promise<RecoveryCodeSet> {
    // count() is a bigint in PostgreSQL (parsed to a number by the pool); sum of a CASE keeps it one statement.
    const row = await this.sql.get<{ total: number; unused: number | null; generated_at: number | null }>(
      `SELECT count(*) AS total, sum(CASE WHEN used_at IS NULL THEN 1 ELSE 0 END) AS unused,
         min(generated_at) AS generated_at
       FROM recovery_codes WHERE user_id = ?`,
      [userId],
    );
    const total = Number(row?.total ?? 0);
    return {
      total,
      left: Number(row?.unused ?? 0),
      generatedAt: total > 0 && row?.generated_at != null ? Number(row.generated_at) : undefined,
    };
  }

  async replace(userId: string, codeHashes: readonly string[], now: number): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.run('DELETE FROM recovery_codes WHERE user_id = ?', [userId]);
      for (const hash of codeHashes) {
        await tx.run(
          'INSERT INTO recovery_codes (user_id, code_hash, generated_at, used_at) VALUES (?, ?, ?, NULL)',
          [userId, hash, now],
        );
      }
    });
  }

  async use(userId: string, codeHash: string, now: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      'UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL',
      [now, userId, codeHash],
    );
    return changes === 1;
  }

  async deleteAll(userId: string): Promise<number> {
    return (await this.sql.run('DELETE FROM recovery_codes WHERE user_id = ?', [userId])).changes;
  }
}
