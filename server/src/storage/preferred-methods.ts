/**
 * The account's preferred 2-step method (migration 019's `account_preferred_methods`): the interface and its SQL.
 * What it means and when it counts: factors/preferred-method.ts.
 */
import { preferredMethodSchema, type PreferredMethod } from 'shared-auth/contract';
import type { Sql } from '../db/sql.js';

export interface PreferredMethodStore {
  /** The account's chosen method, or undefined when it chose none (or the row holds an unknown value). */
  get(accountId: string): Promise<PreferredMethod | undefined>;
  /** Records `method` as the account's choice at `at` (ms); a later choice replaces it. */
  set(accountId: string, method: PreferredMethod, at: number): Promise<void>;
  /** Forgets the choice when it is `method` (that method was turned off or removed); true when it was. */
  clear(accountId: string, method: PreferredMethod): Promise<boolean>;
}

/** The store over the portal's database, or over a transaction's (`tx.sql`). */
export function preferredMethodStore(sql: Sql): PreferredMethodStore {
  return {
    async get(accountId) {
      const row = await sql.get<{ method: string }>(
        'SELECT method FROM account_preferred_methods WHERE account_id = ?',
        [accountId],
      );
      const parsed = preferredMethodSchema.safeParse(row?.method);
      return parsed.success ? parsed.data : undefined;
    },
    async set(accountId, method, at) {
      await sql.run(
        `INSERT INTO account_preferred_methods (account_id, method, chosen_at) VALUES (?, ?, ?)
         ON CONFLICT (account_id) DO UPDATE SET method = excluded.method, chosen_at = excluded.chosen_at`,
        [accountId, method, at],
      );
    },
    async clear(accountId, method) {
      const result = await sql.run(
        'DELETE FROM account_preferred_methods WHERE account_id = ? AND method = ?',
        [accountId, method],
      );
      return result.changes > 0;
    },
  };
}
