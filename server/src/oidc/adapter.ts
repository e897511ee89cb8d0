import { createHash } from 'node:crypto';
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import type { Db } from '../db/connection.js';

const epochNow = () => Math.floor(Date.now() / 1000);

interface PayloadRow {
  payload: string;
  consumed_at: number | null;
}

/**
 * Grant ids are not credentials (they name a consent and are carried in access tokens as `gid`); every other
 * model's id is: a session cookie, a refresh token, an authorization code, an interaction cookie. Those are kept
 * only as SHA-256 hashes, so a copy of the database file redeems nothing.
 */
const PLAIN_ID_MODELS = new Set(['Grant']);

export function storedIdOf(model: string, id: string): string {
  return PLAIN_ID_MODELS.has(model) ? id : createHash('sha256').update(id).digest('base64url');
}

/**
 * Two tabs that refresh at the same moment send the same refresh token; the second would count as a replay and
 * revoke the whole grant (signing the user out). As Okta does, the token just rotated stays usable this long.
 */
export const REFRESH_TOKEN_REUSE_GRACE_SECONDS = 30;

export interface RevokedSessions {
  sessions: number;
  grants: number;
  tokens: number;
  interactions: number;
}

export interface SqliteOidcStoreOptions {
  /**
   * Called inside the transaction that deletes a provider session (sign-out, or another session's revocation),
   * so what hangs on the session (step-up grants) ends with it, atomically.
   */
  onSessionsEnded?: (accountId: string, sessionUids: string[]) => void;
}

/**
 * The embedded provider's storage: oidc-provider's models (sessions, grants, codes, refresh tokens,
 * interactions) and what the API asks of them on every call (is a token's session and grant still there).
 */
export interface ProviderStore {
  /** The factory oidc-provider's `adapter` setting takes. */
  readonly factory: AdapterFactory;
  adapterFor(model: string): Adapter;
  /** Deletes rows past their expiry; returns how many went. */
  deleteExpired(): number;
  /**
   * Whether an access token's sign-in session (`sid`) and grant (`gid`) of this account still exist and the
   * token itself was not revoked. Runs on every authenticated call.
   */
  isTokenAlive(token: { accountId: string; sid: string; gid: string; jti: string }): boolean;
  /** Refuses an access token (a JWT, not stored) until it expires: /v1/revoke of an access token. */
  revokeAccessToken(jti: string, expiresAt: number): void;
  /** When the account's session `uid` signed in (loginTs, seconds), or undefined when it no longer exists. */
  sessionLoginTime(accountId: string, sessionUid: string): number | undefined;
  /**
   * Ends every provider session of the account except `keepSessionUid`, with what belongs to them. Synchronous:
   * runs inside the caller's transaction.
   */
  revokeAccountExcept(accountId: string, keepSessionUid: string | undefined): RevokedSessions;
  /** The live grants of an account with the session each belongs to. */
  grantsOfAccount(accountId: string): { grantId: string; sessionUid: string | null }[];
}

/**
 * oidc-provider's storage (sessions, grants, codes, refresh tokens, interactions) in the portal's SQLite file.
 * Every write is a synchronous statement, committed before the provider goes on.
 */
export class SqliteOidcStore implements ProviderStore {
  private readonly statements;
  private readonly onSessionsEnded: NonNullable<SqliteOidcStoreOptions['onSessionsEnded']>;

  constructor(
    private readonly db: Db,
    options: SqliteOidcStoreOptions = {},
  ) {
    this.onSessionsEnded = options.onSessionsEnded ?? (() => undefined);
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
      // The first consumption counts: a second use inside the grace period must not extend it.
      consume: db.prepare(
        'UPDATE oidc_payloads SET consumed_at = coalesce(consumed_at, ?) WHERE model = ? AND id = ?',
      ),
      sessionOwner: db.prepare<[string], { uid: string | null; account_id: string | null }>(
        `SELECT uid, account_id FROM oidc_payloads WHERE model = 'Session' AND id = ?`,
      ),
      destroy: db.prepare('DELETE FROM oidc_payloads WHERE model = ? AND id = ?'),
      revokeByGrantId: db.prepare('DELETE FROM oidc_payloads WHERE grant_id = ?'),
      deleteExpired: db.prepare('DELETE FROM oidc_payloads WHERE expires_at IS NOT NULL AND expires_at <= ?'),
      deleteExpiredRevocations: db.prepare('DELETE FROM revoked_access_tokens WHERE expires_at <= ?'),
      sessionPayload: db.prepare<[string, string], { payload: string }>(
        `SELECT payload FROM oidc_payloads WHERE model = 'Session' AND account_id = ? AND uid = ?`,
      ),
      grantIdsOfSession: db.prepare<[string, string], { grant_id: string }>(
        `SELECT DISTINCT grant_id FROM oidc_payloads
         WHERE account_id = ? AND session_uid = ? AND grant_id IS NOT NULL`,
      ),
      otherSessionUids: db.prepare<{ account: string; keep: string | null }, { uid: string }>(
        `SELECT uid FROM oidc_payloads
         WHERE model = 'Session' AND account_id = @account AND uid IS NOT NULL AND uid IS NOT @keep`,
      ),
      // @kept is a JSON array of the grant ids to keep.
      deleteOtherGrants: db.prepare(
        `DELETE FROM oidc_payloads WHERE model = 'Grant' AND account_id = @account
           AND id NOT IN (SELECT value FROM json_each(@kept))`,
      ),
      deleteOtherGrantTokens: db.prepare(
        `DELETE FROM oidc_payloads WHERE account_id = @account AND model <> 'Grant' AND grant_id IS NOT NULL
           AND grant_id NOT IN (SELECT value FROM json_each(@kept))`,
      ),
      deleteOtherSessionTokens: db.prepare(
        `DELETE FROM oidc_payloads WHERE account_id = @account AND model NOT IN ('Session', 'Grant')
           AND session_uid IS NOT NULL AND session_uid IS NOT @keep`,
      ),
      deleteOtherSessions: db.prepare(
        `DELETE FROM oidc_payloads WHERE model = 'Session' AND account_id = @account AND uid IS NOT @keep`,
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
      // The per-request check: is the token's session there, is its grant there, was the token itself revoked?
      tokenAlive: db.prepare<
        { sid: string; gid: string; account: string; jti: string; now: number },
        { alive: number }
      >(
        `SELECT
           EXISTS (SELECT 1 FROM oidc_payloads WHERE model = 'Session' AND uid = @sid AND account_id = @account
                     AND (expires_at IS NULL OR expires_at > @now))
           AND EXISTS (SELECT 1 FROM oidc_payloads WHERE model = 'Grant' AND id = @gid AND account_id = @account
                     AND (expires_at IS NULL OR expires_at > @now))
           AND NOT EXISTS (SELECT 1 FROM revoked_access_tokens WHERE jti = @jti) AS alive`,
      ),
      revokeAccessToken: db.prepare<[string, number]>(
        `INSERT INTO revoked_access_tokens (jti, expires_at) VALUES (?, ?)
         ON CONFLICT (jti) DO NOTHING`,
      ),
    };
  }

  private static decode(model: string, id: string, row: PayloadRow | undefined): AdapterPayload | undefined {
    if (!row) return undefined;
    const payload = JSON.parse(row.payload) as AdapterPayload;
    // The id is not stored (only its hash): give the provider back the one it asked with.
    if (!PLAIN_ID_MODELS.has(model) && id !== '') payload.jti = id;
    if (row.consumed_at === null) return payload;
    const inGrace =
      model === 'RefreshToken' && epochNow() - row.consumed_at <= REFRESH_TOKEN_REUSE_GRACE_SECONDS;
    return inGrace ? payload : { ...payload, consumed: row.consumed_at };
  }

  adapterFor(model: string): Adapter {
    const s = this.statements;
    const decode = SqliteOidcStore.decode;
    const key = (id: string) => storedIdOf(model, id);
    const destroySession = this.db.transaction((id: string) => {
      const owner = s.sessionOwner.get(key(id));
      s.destroy.run(model, key(id));
      if (owner?.account_id && owner.uid) this.onSessionsEnded(owner.account_id, [owner.uid]);
    });
    return {
      async upsert(id, payload, expiresIn) {
        const stored: AdapterPayload = { ...payload };
        if (!PLAIN_ID_MODELS.has(model)) delete stored.jti;
        s.upsert.run({
          model,
          id: key(id),
          payload: JSON.stringify(stored),
          grant_id: payload.grantId ?? null,
          user_code: payload.userCode ?? null,
          uid: payload.uid ?? null,
          account_id: payload.accountId ?? null,
          session_uid: (payload as { sessionUid?: string }).sessionUid ?? null,
          expires_at: Number.isFinite(expiresIn) ? epochNow() + expiresIn : null,
        });
      },
      async find(id) {
        return decode(model, id, s.find.get(model, key(id), epochNow()));
      },
      // Only sessions are looked up by uid, to check that one still exists; its id is not needed there.
      async findByUid(uid) {
        return decode(model, '', s.findByUid.get(model, uid, epochNow()));
      },
      async findByUserCode(userCode) {
        return decode(model, '', s.findByUserCode.get(model, userCode, epochNow()));
      },
      async consume(id) {
        s.consume.run(epochNow(), model, key(id));
      },
      async destroy(id) {
        if (model === 'Session') destroySession(id);
        else s.destroy.run(model, key(id));
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
    const now = epochNow();
    return (
      this.statements.deleteExpired.run(now).changes +
      this.statements.deleteExpiredRevocations.run(now).changes
    );
  }

  /**
   * Whether an access token's sign-in session (`sid`) and grant (`gid`) of this account still exist and the
   * token itself was not revoked. One indexed read; runs on every authenticated call.
   */
  isTokenAlive(token: { accountId: string; sid: string; gid: string; jti: string }): boolean {
    const row = this.statements.tokenAlive.get({
      sid: token.sid,
      gid: token.gid,
      account: token.accountId,
      jti: token.jti,
      now: epochNow(),
    });
    return row?.alive === 1;
  }

  /** Refuses an access token (a JWT, not stored) until it expires: /v1/revoke of an access token. */
  revokeAccessToken(jti: string, expiresAt: number): void {
    this.statements.revokeAccessToken.run(jti, expiresAt);
  }

  /** When the account's session `uid` signed in (loginTs, seconds), or undefined when it no longer exists. */
  sessionLoginTime(accountId: string, sessionUid: string): number | undefined {
    const row = this.statements.sessionPayload.get(accountId, sessionUid);
    if (!row) return undefined;
    const { loginTs } = JSON.parse(row.payload) as { loginTs?: unknown };
    return typeof loginTs === 'number' ? loginTs : undefined;
  }

  /**
   * Ends every provider session of the account except `keepSessionUid` (the `sid` of the caller's access
   * token), with the grants, refresh tokens and codes that belong to them, and any sign-in in progress that
   * already passed the password step: Okta's revokeSessions, minus the session making the change. Access tokens
   * of the ended sessions are refused from then on (isTokenAlive). Synchronous statements: run it inside the
   * caller's transaction.
   */
  revokeAccountExcept(accountId: string, keepSessionUid: string | undefined): RevokedSessions {
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
    const kept = JSON.stringify([...keptGrants]);
    const ended = s.otherSessionUids.all({ account: accountId, keep }).map((row) => row.uid);
    const grants = s.deleteOtherGrants.run({ account: accountId, kept }).changes;
    const tokens =
      s.deleteOtherGrantTokens.run({ account: accountId, kept }).changes +
      s.deleteOtherSessionTokens.run({ account: accountId, keep }).changes;
    const sessions = s.deleteOtherSessions.run({ account: accountId, keep }).changes;
    const interactions = s.deleteSignInsInProgress.run({ account: accountId }).changes;
    if (ended.length > 0) this.onSessionsEnded(accountId, ended);
    return { sessions, grants, tokens, interactions };
  }

  /** The live grants of an account with the session each belongs to. */
  grantsOfAccount(accountId: string): { grantId: string; sessionUid: string | null }[] {
    return this.statements.grantIdsOfAccount
      .all(accountId, epochNow())
      .map((row) => ({ grantId: row.grant_id, sessionUid: row.session_uid }));
  }
}
