import type { FactorName } from 'shared-auth/contract';
import { inList, type Sql } from '../db/sql.js';
import { storedFactorType } from './store.js';

/** What a step-up grant was earned with: a factor's code, or the password again (first factor only). */
export type GrantProof = FactorName | 'password';

/** The step-up grant key of a provider session (its uid, the access tokens' `sid`). */
export function sessionGrantKey(sessionUid: string): string {
  return `sid:${sessionUid}`;
}

/**
 * Step-up grants: a sign-in session (its grant key) verified recently. A grant from a 2-step code opens the
 * step-up-protected calls; a 'password' grant (reauthenticate) only lets a user without any factor turn on the
 * first one.
 */
export interface GrantStore {
  /** When the session's factor grant ends (ms), or undefined when it has none valid at `now`. */
  factorGrantExpiry(userId: string, sessionKey: string, now: number): Promise<number | undefined>;
  /** The same for a 'password' grant. */
  passwordGrantExpiry(userId: string, sessionKey: string, now: number): Promise<number | undefined>;
  /** Creates or replaces the session's grant. */
  put(userId: string, sessionKey: string, proof: GrantProof, expiresAt: number): Promise<void>;
  /** Ends the grants of these sessions (they were signed out or revoked): run it inside that transaction. */
  deleteOf(userId: string, sessionKeys: string[]): Promise<number>;
  /** Ends the grants of every session of the user but `keepSessionKey`. */
  deleteOthers(userId: string, keepSessionKey: string): Promise<number>;
  /** Deletes the grants expired at `now`; returns how many. */
  prune(now: number): Promise<number>;
}

/** Step-up grants (migration 004's `stepup_grants`) over `Sql`. */
export class SqlGrantStore implements GrantStore {
  constructor(private readonly sql: Sql) {}

  private async expiry(userId: string, sessionKey: string, now: number, password: boolean) {
    const row = await this.sql.get<{ expires_at: number }>(
      `SELECT expires_at FROM stepup_grants
       WHERE user_id = ? AND session_id = ? AND expires_at > ? AND factor ${password ? '=' : '<>'} 'password'`,
      [userId, sessionKey, now],
    );
    return row?.expires_at;
  }

  factorGrantExpiry(userId: string, sessionKey: string, now: number): Promise<number | undefined> {
    return this.expiry(userId, sessionKey, now, false);
  }

  passwordGrantExpiry(userId: string, sessionKey: string, now: number): Promise<number | undefined> {
    return this.expiry(userId, sessionKey, now, true);
  }

  async put(userId: string, sessionKey: string, proof: GrantProof, expiresAt: number): Promise<void> {
    await this.sql.run(
      `INSERT INTO stepup_grants (user_id, session_id, factor, expires_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (user_id, session_id) DO UPDATE SET factor = excluded.factor, expires_at = excluded.expires_at`,
      [userId, sessionKey, proof === 'password' ? proof : storedFactorType(proof), expiresAt],
    );
  }

  async deleteOf(userId: string, sessionKeys: string[]): Promise<number> {
    if (sessionKeys.length === 0) return 0;
    const keys = inList(sessionKeys);
    const { changes } = await this.sql.run(
      `DELETE FROM stepup_grants WHERE user_id = ? AND session_id ${keys.text}`,
      [userId, ...keys.params],
    );
    return changes;
  }

  async deleteOthers(userId: string, keepSessionKey: string): Promise<number> {
    const { changes } = await this.sql.run(
      'DELETE FROM stepup_grants WHERE user_id = ? AND session_id <> ?',
      [userId, keepSessionKey],
    );
    return changes;
  }

  async prune(now: number): Promise<number> {
    return (await this.sql.run('DELETE FROM stepup_grants WHERE expires_at <= ?', [now])).changes;
  }
}
