import type { FactorName } from 'shared-auth/contract';
import type { Db } from '../db/connection.js';
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
  factorGrantExpiry(userId: string, sessionKey: string, now: number): number | undefined;
  /** The same for a 'password' grant. */
  passwordGrantExpiry(userId: string, sessionKey: string, now: number): number | undefined;
  /** Creates or replaces the session's grant. */
  put(userId: string, sessionKey: string, proof: GrantProof, expiresAt: number): void;
  /** Ends the grants of these sessions (they were signed out or revoked). Synchronous: inside that transaction. */
  deleteOf(userId: string, sessionKeys: string[]): number;
  /** Ends the grants of every session of the user but `keepSessionKey`. */
  deleteOthers(userId: string, keepSessionKey: string): number;
  /** Deletes the grants expired at `now`; returns how many. */
  prune(now: number): number;
}

/** Step-up grants in SQLite (migration 004's `stepup_grants`). */
export class SqliteGrantStore implements GrantStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      grant: db.prepare<[string, string, number], { expires_at: number }>(
        `SELECT expires_at FROM stepup_grants
         WHERE user_id = ? AND session_id = ? AND expires_at > ? AND factor <> 'password'`,
      ),
      passwordGrant: db.prepare<[string, string, number], { expires_at: number }>(
        `SELECT expires_at FROM stepup_grants
         WHERE user_id = ? AND session_id = ? AND expires_at > ? AND factor = 'password'`,
      ),
      // @keys: a JSON array of session keys.
      deleteGrantsOf: db.prepare<{ user_id: string; keys: string }>(
        'DELETE FROM stepup_grants WHERE user_id = @user_id AND session_id IN (SELECT value FROM json_each(@keys))',
      ),
      deleteOtherGrants: db.prepare<{ user_id: string; keep: string }>(
        'DELETE FROM stepup_grants WHERE user_id = @user_id AND session_id <> @keep',
      ),
      putGrant: db.prepare<{ user_id: string; session_id: string; factor: string; expires_at: number }>(
        `INSERT INTO stepup_grants (user_id, session_id, factor, expires_at)
         VALUES (@user_id, @session_id, @factor, @expires_at)
         ON CONFLICT (user_id, session_id) DO UPDATE SET factor = @factor, expires_at = @expires_at`,
      ),
      prune: db.prepare<[number]>('DELETE FROM stepup_grants WHERE expires_at <= ?'),
    };
  }

  factorGrantExpiry(userId: string, sessionKey: string, now: number): number | undefined {
    return this.s.grant.get(userId, sessionKey, now)?.expires_at;
  }

  passwordGrantExpiry(userId: string, sessionKey: string, now: number): number | undefined {
    return this.s.passwordGrant.get(userId, sessionKey, now)?.expires_at;
  }

  put(userId: string, sessionKey: string, proof: GrantProof, expiresAt: number): void {
    this.s.putGrant.run({
      user_id: userId,
      session_id: sessionKey,
      factor: proof === 'password' ? proof : storedFactorType(proof),
      expires_at: expiresAt,
    });
  }

  deleteOf(userId: string, sessionKeys: string[]): number {
    return this.s.deleteGrantsOf.run({ user_id: userId, keys: JSON.stringify(sessionKeys) }).changes;
  }

  deleteOthers(userId: string, keepSessionKey: string): number {
    return this.s.deleteOtherGrants.run({ user_id: userId, keep: keepSessionKey }).changes;
  }

  prune(now: number): number {
    return this.s.prune.run(now).changes;
  }
}
