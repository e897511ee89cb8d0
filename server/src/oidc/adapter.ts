import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import type { Db } from '../db/connection.js';

const epochNow = () => Math.floor(Date.now() / 1000);

interface PayloadRow {
  payload: string;
  consumed_at: number | null;
}

/**
 * oidc-provider's storage (sessions, grants, codes, refresh tokens, interactions) in the portal's SQLite file.
 * Every write is a synchronous statement, committed before the provider goes on.
 */
export class SqliteOidcStore {
  private readonly statements;

  constructor(db: Db) {
    this.statements = {
      upsert: db.prepare(
        `INSERT INTO oidc_payloads (model, id, payload, grant_id, user_code, uid, account_id, session_uid, expires_at, consumed_at)
         VALUES (@model, @id, @payload, @grant_id, @user_code, @uid, @account_id, @session_uid, @expires_at, NULL)
         ON CONFLICT (model, id) DO UPDATE SET
           payload = excluded.payload, grant_id = excluded.grant_id, user_code = excluded.user_code,
           uid = excluded.uid, account_id = excluded.account_id, session_uid = excluded.session_uid,
           expires_at = excluded.expires_at, consumed_at = NULL`,
      ),
      find: db.prepare<[string, string, number], PayloadRow>(
        `SELECT payload, consumed_at FROM oidc_payloads
         WHERE model = ? AND id = ? AND (expires_at IS NULL OR expires_at > ?)`,
      ),
      findByUid: db.prepare<[string, string, number], PayloadRow>(
        `SELECT payload, consumed_at FROM oidc_payloads
         WHERE model = ? AND uid = ? AND (expires_at IS NULL OR expires_at > ?)`,
      ),
      findByUserCode: db.prepare<[string, string, number], PayloadRow>(
        `SELECT payload, consumed_at FROM oidc_payloads
         WHERE model = ? AND user_code = ? AND (expires_at IS NULL OR expires_at > ?)`,
      ),
      consume: db.prepare('UPDATE oidc_payloads SET consumed_at = ? WHERE model = ? AND id = ?'),
      destroy: db.prepare('DELETE FROM oidc_payloads WHERE model = ? AND id = ?'),
      revokeByGrantId: db.prepare('DELETE FROM oidc_payloads WHERE grant_id = ?'),
      deleteExpired: db.prepare('DELETE FROM oidc_payloads WHERE expires_at IS NOT NULL AND expires_at <= ?'),
      sessionPayload: db.prepare<[string, string], { payload: string }>(
        `SELECT payload FROM oidc_payloads WHERE model = 'Session' AND account_id = ? AND uid = ?`,
      ),
      grantIdsOfSession: db.prepare<[string, string], { grant_id: string }>(
        `SELECT DISTINCT grant_id FROM oidc_payloads
         WHERE account_id = ? AND session_uid = ? AND grant_id IS NOT NULL`,
      ),
      allGrantIdsOfAccount: db.prepare<[string, string], { grant_id: string }>(
        `SELECT id AS grant_id FROM oidc_payloads WHERE model = 'Grant' AND account_id = ?
         UNION
         SELECT grant_id FROM oidc_payloads WHERE account_id = ? AND grant_id IS NOT NULL`,
      ),
      deleteGrant: db.prepare(`DELETE FROM oidc_payloads WHERE model = 'Grant' AND id = ?`),
      deleteOtherSessions: db.prepare(
        `DELETE FROM oidc_payloads WHERE model = 'Session' AND account_id = @account AND uid IS NOT @keep`,
      ),
      deleteOtherSessionTokens: db.prepare(
        `DELETE FROM oidc_payloads
         WHERE account_id = @account AND session_uid IS NOT NULL AND session_uid IS NOT @keep`,
      ),
      // Sign-ins in progress that already passed the password step (a second step may hold the account id).
      deleteSignInsInProgress: db.prepare(
        `DELETE FROM oidc_payloads WHERE model = 'Interaction' AND (
           json_extract(payload, '$.result.portal.accountId') = @account
           OR json_extract(payload, '$.result.login.accountId') = @account)`,
      ),
      grantIdsOfAccount: db.prepare<[string, number], { grant_id: string; session_uid: string | null }>(
        `SELECT DISTINCT grant_id, session_uid FROM oidc_payloads
         WHERE account_id = ? AND grant_id IS NOT NULL AND (expires_at IS NULL OR expires_at > ?)`,
      ),
    };
  }

  private static decode(row: PayloadRow | undefined): AdapterPayload | undefined {
    if (!row) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    return row.consumed_at === null ? payload : { ...payload, consumed: row.consumed_at };
  }

  adapterFor(model: string): Adapter {
    const s = this.statements;
    const decode = SqliteOidcStore.decode;
    return {
      async upsert(id, payload, expiresIn) {
        s.upsert.run({
          model,
          id,
          payload: JSON.stringify(payload),
          grant_id: payload.grantId ?? null,
          user_code: payload.userCode ?? null,
          uid: payload.uid ?? null,
          account_id: payload.accountId ?? null,
          session_uid: (payload as { sessionUid?: string }).sessionUid ?? null,
          expires_at: Number.isFinite(expiresIn) ? epochNow() + expiresIn : null,
        });
      },
      async find(id) {
        return decode(s.find.get(model, id, epochNow()));
      },
      async findByUid(uid) {
        return decode(s.findByUid.get(model, uid, epochNow()));
      },
      async findByUserCode(userCode) {
        return decode(s.findByUserCode.get(model, userCode, epochNow()));
      },
      async consume(id) {
        s.consume.run(epochNow(), model, id);
      },
      async destroy(id) {
        s.destroy.run(model, id);
      },
      async revokeByGrantId(grantId) {
        s.revokeByGrantId.run(grantId);
      },
    };
  }

  /** The factory oidc-provider's `adapter` setting takes. */
  get factory(): AdapterFactory {
    return (model) => this.adapterFor(model);
  }

  /** Deletes rows past their expiry; returns how many went. */
  deleteExpired(): number {
    return this.statements.deleteExpired.run(epochNow()).changes;
  }

  /**
   * Ends every provider session of the account except `keepSessionUid` (the `sid` of the caller's access
   * token), with the grants, refresh tokens and codes that belong to them, and any sign-in in progress that
   * already passed the password step: Okta's revokeSessions after a password change, minus the session
   * making the change. Synchronous statements: run it inside the caller's transaction. Access tokens are
   * JWTs checked without a lookup, so those already issued to other sessions live out their lifetime (1 h).
   */
  revokeAccountExcept(
    accountId: string,
    keepSessionUid: string | undefined,
  ): { sessions: number; grants: number; tokens: number; interactions: number } {
    const s = this.statements;
    const keep = keepSessionUid ?? null;
    const keptGrants = new Set<string>();
    if (keepSessionUid) {
      const session = s.sessionPayload.get(accountId, keepSessionUid);
      if (session) {
        const { authorizations = {} } = JSON.parse(session.payload) as {
          authorizations?: Record<string, { grantId?: string }>;
        };
        for (const { grantId } of Object.values(authorizations)) if (grantId) keptGrants.add(grantId);
      }
      for (const row of s.grantIdsOfSession.all(accountId, keepSessionUid)) keptGrants.add(row.grant_id);
    }
    let grants = 0;
    let tokens = 0;
    for (const { grant_id: grantId } of s.allGrantIdsOfAccount.all(accountId, accountId)) {
      if (keptGrants.has(grantId)) continue;
      grants += s.deleteGrant.run(grantId).changes;
      tokens += s.revokeByGrantId.run(grantId).changes;
    }
    tokens += s.deleteOtherSessionTokens.run({ account: accountId, keep }).changes;
    const sessions = s.deleteOtherSessions.run({ account: accountId, keep }).changes;
    const interactions = s.deleteSignInsInProgress.run({ account: accountId }).changes;
    return { sessions, grants, tokens, interactions };
  }

  /**
   * The live grants of an account with the session each belongs to. A later feature uses this to revoke a
   * user's other sessions and refresh tokens after a password change.
   */
  grantsOfAccount(accountId: string): { grantId: string; sessionUid: string | null }[] {
    return this.statements.grantIdsOfAccount
      .all(accountId, epochNow())
      .map((row) => ({ grantId: row.grant_id, sessionUid: row.session_uid }));
  }
}
