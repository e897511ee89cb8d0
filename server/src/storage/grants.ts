/**
 * Step-up grants (migration 004's `stepup_grants`): the keys a grant is stored under (a provider session's, a grant
 * chain's, a carried one), the interface and its SQL. What earns and checks them: factors/.
 */
import { createHash } from 'node:crypto';
import type { FactorName } from 'shared-auth/contract';
import { inList, type Sql } from '../db/sql.js';
import { storedFactorType } from './factors.js';

/**
 * What a step-up grant was earned with: a factor's code, a recovery code (a fallback of the factors: the same
 * grant), or the password again (first factor only).
 */
export type GrantProof = FactorName | 'recovery-code' | 'passkey' | 'password';

// Session uids and grant ids are bearer-ish (with the signing key they mint access tokens): the keys hold hashes.
const hashed = (id: string) => createHash('sha256').update(id).digest('base64url');

/**
 * The step-up grant key of a provider session: every key of the session starts with it (a grant chain's key,
 * the key carried over a change), so the session's end removes them all. Okta tokens without a `gid` use it alone.
 */
export function sessionGrantKey(sessionUid: string): string {
  return `sid:${hashed(sessionUid)}`;
}

/**
 * The step-up grant key of one grant chain (the access token's `gid`: one authorization and the refresh tokens
 * rotated from it) in its provider session: a copied refresh token's branch in another grant cannot borrow it.
 */
export function chainGrantKey(sessionUid: string, grantId: string): string {
  return `${sessionGrantKey(sessionUid)}:gid:${hashed(grantId)}`;
}

/**
 * Where a chain's step-up waits after a password or 2-step change ended its grant: the next grant created in the
 * same provider session (only its cookie holder can create one) takes it over (claimCarried).
 */
export function carriedGrantKey(sessionUid: string): string {
  return `${sessionGrantKey(sessionUid)}:next`;
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
  /**
   * Ends the grants of these sessions (their sessionGrantKey; they were signed out or revoked), their chains'
   * and carried ones too: run it inside that transaction.
   */
  deleteOf(userId: string, sessionKeys: string[]): Promise<number>;
  /**
   * Ends every grant of the user but `keepKey`'s, which moves to `carryKey` (when given) for the caller's next
   * grant chain to claim: a password or 2-step change ended every grant chain, the caller's too.
   */
  endAllCarrying(userId: string, keepKey: string, carryKey: string | undefined): Promise<number>;
  /** Ends the grants of exactly these keys (a forked grant chain's). */
  deleteKeys(userId: string, keys: string[]): Promise<number>;
  /** Moves a carried grant (carriedGrantKey) to the new chain's key, if one waits (an expired one stays expired). */
  claimCarried(userId: string, carryKey: string, chainKey: string): Promise<void>;
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
      [
        userId,
        sessionKey,
        proof === 'password' || proof === 'recovery-code' || proof === 'passkey'
          ? proof
          : storedFactorType(proof),
        expiresAt,
      ],
    );
  }

  /** Each session's keys: its own (Okta) and every key that starts with it (chains, carried). */
  async deleteOf(userId: string, sessionKeys: string[]): Promise<number> {
    let changes = 0;
    for (const key of sessionKeys) {
      // substr, not LIKE: base64url's '_' is a LIKE wildcard.
      changes += (
        await this.sql.run(
          `DELETE FROM stepup_grants WHERE user_id = ? AND (session_id = ? OR substr(session_id, 1, ?) = ?)`,
          [userId, key, key.length + 1, `${key}:`],
        )
      ).changes;
    }
    return changes;
  }

  async deleteKeys(userId: string, keys: string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const list = inList(keys);
    const { changes } = await this.sql.run(
      `DELETE FROM stepup_grants WHERE user_id = ? AND session_id ${list.text}`,
      [userId, ...list.params],
    );
    return changes;
  }

  async endAllCarrying(userId: string, keepKey: string, carryKey: string | undefined): Promise<number> {
    if (this.sql.dialect === 'postgres') {
      // One statement (one round trip; SQLite takes no writes in WITH): the two touch different rows (<> and =).
      const row = await this.sql.get<{ ended: number }>(
        `WITH ended AS (DELETE FROM stepup_grants WHERE user_id = ? AND session_id <> ? RETURNING 1),
           carried AS (UPDATE stepup_grants SET session_id = ? WHERE user_id = ? AND session_id = ? AND ? = 1)
         SELECT count(*) AS ended FROM ended`,
        [userId, keepKey, carryKey ?? keepKey, userId, keepKey, carryKey && carryKey !== keepKey ? 1 : 0],
      );
      return row?.ended ?? 0;
    }
    /* v8 ignore start -- @preserve SQLite's path: the sqlite project runs it; the postgres coverage guard skips it. */
    const { changes } = await this.sql.run(
      'DELETE FROM stepup_grants WHERE user_id = ? AND session_id <> ?',
      [userId, keepKey],
    );
    if (carryKey && carryKey !== keepKey) {
      await this.sql.run('UPDATE stepup_grants SET session_id = ? WHERE user_id = ? AND session_id = ?', [
        carryKey,
        userId,
        keepKey,
      ]);
    }
    return changes;
    /* v8 ignore stop -- @preserve */
  }

  async claimCarried(userId: string, carryKey: string, chainKey: string): Promise<void> {
    await this.sql.run('UPDATE stepup_grants SET session_id = ? WHERE user_id = ? AND session_id = ?', [
      chainKey,
      userId,
      carryKey,
    ]);
  }

  async prune(now: number): Promise<number> {
    return (await this.sql.run('DELETE FROM stepup_grants WHERE expires_at <= ?', [now])).changes;
  }
}
