/**
 * Okta mode's per-account "not before" of access tokens (migration 012's `account_token_not_before`): the interface
 * and its SQL. Why it exists and how it is checked: auth/token-not-before.ts.
 */
import type { Sql } from '../db/sql.js';

export interface TokenNotBefore {
  /** Unix time in seconds: the account's tokens with an earlier `iat` are refused. */
  notBefore: number;
  /** The `jti` of the token that made the change, which stays accepted. */
  exceptJti: string | null;
}

export interface TokenNotBeforeStore {
  /** The account's "not before", or undefined when it never changed its password or 2-step verification. */
  get(accountId: string): Promise<TokenNotBefore | undefined>;
  /**
   * Records a change at `at` (ms) made with the token `exceptJti`. A later change wins; an earlier one (another
   * instance's clock behind) leaves a later "not before" in place.
   */
  set(accountId: string, at: number, exceptJti: string | undefined): Promise<void>;
}

/** The store over the portal's database, or over a transaction's (`tx.sql`). */
export function tokenNotBeforeStore(sql: Sql): TokenNotBeforeStore {
  return {
    async get(accountId) {
      const row = await sql.get<{ not_before: number; except_jti: string | null }>(
        'SELECT not_before, except_jti FROM account_token_not_before WHERE account_id = ?',
        [accountId],
      );
      return row ? { notBefore: Number(row.not_before), exceptJti: row.except_jti } : undefined;
    },
    async set(accountId, at, exceptJti) {
      await sql.run(
        `INSERT INTO account_token_not_before (account_id, not_before, except_jti) VALUES (?, ?, ?)
         ON CONFLICT (account_id) DO UPDATE SET not_before = excluded.not_before, except_jti = excluded.except_jti
         WHERE account_token_not_before.not_before <= excluded.not_before`,
        [accountId, Math.floor(at / 1000), exceptJti ?? null],
      );
    },
  };
}
