import { createHash } from 'node:crypto';
import type { Adapter, AdapterFactory, AdapterPayload } from 'oidc-provider';
import { inList, type Sql } from '../db/sql.js';

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

export interface ProviderStoreOptions {
  /**
   * Called inside the transaction that deletes a provider session (sign-out, or another session's revocation),
   * so what hangs on the session (step-up grants) ends with it, atomically: `tx` is that transaction.
   */
  onSessionsEnded?: (tx: Sql, accountId: string, sessionUids: string[]) => Promise<unknown>;
}

/** An access token's session, grant and jti: what the per-call liveness check looks up. */
export interface TokenSession {
  accountId: string;
  sid: string;
  gid: string;
  jti: string;
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
  deleteExpired(): Promise<number>;
  /**
   * Whether an access token's sign-in session (`sid`) and grant (`gid`) of this account still exist and the
   * token itself was not revoked.
   */
  isTokenAlive(token: TokenSession): Promise<boolean>;
  /** Refuses an access token (a JWT, not stored) until it expires: /v1/revoke of an access token. */
  revokeAccessToken(jti: string, expiresAt: number): Promise<void>;
  /** When the account's session `uid` signed in (loginTs, seconds), or undefined when it no longer exists. */
  sessionLoginTime(accountId: string, sessionUid: string): Promise<number | undefined>;
  /**
   * Ends every provider session of the account except `keepSessionUid`, with what belongs to them. Run it inside
   * the caller's transaction.
   */
  revokeAccountExcept(accountId: string, keepSessionUid: string | undefined): Promise<RevokedSessions>;
  /** The live grants of an account with the session each belongs to. */
  grantsOfAccount(accountId: string): Promise<{ grantId: string; sessionUid: string | null }[]>;
}

/** The per-call check as an SQL expression (1 or 0) over ? parameters: sid, account, gid, account, jti, now×2. */
export const TOKEN_ALIVE_SQL = `CASE WHEN
     EXISTS (SELECT 1 FROM oidc_payloads WHERE model = 'Session' AND uid = ? AND account_id = ?
               AND (expires_at IS NULL OR expires_at > ?))
     AND EXISTS (SELECT 1 FROM oidc_payloads WHERE model = 'Grant' AND id = ? AND account_id = ?
               AND (expires_at IS NULL OR expires_at > ?))
     AND NOT EXISTS (SELECT 1 FROM revoked_access_tokens WHERE jti = ?)
   THEN 1 ELSE 0 END`;

/** The parameters of TOKEN_ALIVE_SQL, in order. */
export function tokenAliveParams(
  token: TokenSession,
  now: number,
): [string, string, number, string, string, number, string] {
  return [token.sid, token.accountId, now, token.gid, token.accountId, now, token.jti];
}

const UPSERT = `INSERT INTO oidc_payloads (model, id, payload, grant_id, user_code, uid, account_id, session_uid, expires_at, consumed_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
  ON CONFLICT (model, id) DO UPDATE SET
    payload = excluded.payload, grant_id = excluded.grant_id, user_code = excluded.user_code,
    uid = excluded.uid, account_id = excluded.account_id, session_uid = excluded.session_uid,
    expires_at = excluded.expires_at, consumed_at = NULL`;

const LIVE = '(expires_at IS NULL OR expires_at > ?)';

/**
 * oidc-provider's storage (sessions, grants, codes, refresh tokens, interactions) over `Sql`: every write is
 * committed before the provider goes on.
 */
export class SqlProviderStore implements ProviderStore {
  private readonly onSessionsEnded: NonNullable<ProviderStoreOptions['onSessionsEnded']>;

  constructor(
    private readonly sql: Sql,
    options: ProviderStoreOptions = {},
  ) {
    this.onSessionsEnded = options.onSessionsEnded ?? (async () => undefined);
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
    const { sql } = this;
    const decode = SqlProviderStore.decode;
    const key = (id: string) => storedIdOf(model, id);
    const findBy = async (column: 'id' | 'uid' | 'user_code', value: string, id: string) =>
      decode(
        model,
        id,
        await sql.get<PayloadRow>(
          `SELECT payload, consumed_at FROM oidc_payloads WHERE model = ? AND ${column} = ? AND ${LIVE}`,
          [model, value, epochNow()],
        ),
      );
    const destroySession = (id: string) =>
      sql.transaction(async (tx) => {
        const owner = await tx.get<{ uid: string | null; account_id: string | null }>(
          `SELECT uid, account_id FROM oidc_payloads WHERE model = 'Session' AND id = ?`,
          [key(id)],
        );
        await tx.run('DELETE FROM oidc_payloads WHERE model = ? AND id = ?', [model, key(id)]);
        if (owner?.account_id && owner.uid) await this.onSessionsEnded(tx, owner.account_id, [owner.uid]);
      });
    return {
      async upsert(id, payload, expiresIn) {
        const stored: AdapterPayload = { ...payload };
        if (!PLAIN_ID_MODELS.has(model)) delete stored.jti;
        await sql.run(UPSERT, [
          model,
          key(id),
          JSON.stringify(stored),
          payload.grantId ?? null,
          payload.userCode ?? null,
          payload.uid ?? null,
          payload.accountId ?? null,
          (payload as { sessionUid?: string }).sessionUid ?? null,
          Number.isFinite(expiresIn) ? epochNow() + expiresIn : null,
        ]);
      },
      find: (id) => findBy('id', key(id), id),
      // Only sessions are looked up by uid, to check that one still exists; its id is not needed there.
      findByUid: (uid) => findBy('uid', uid, ''),
      findByUserCode: (userCode) => findBy('user_code', userCode, ''),
      async consume(id) {
        // The first consumption counts: a second use inside the grace period must not extend it.
        await sql.run(
          'UPDATE oidc_payloads SET consumed_at = coalesce(consumed_at, ?) WHERE model = ? AND id = ?',
          [epochNow(), model, key(id)],
        );
      },
      async destroy(id) {
        if (model === 'Session') await destroySession(id);
        else await sql.run('DELETE FROM oidc_payloads WHERE model = ? AND id = ?', [model, key(id)]);
      },
      async revokeByGrantId(grantId) {
        await sql.run('DELETE FROM oidc_payloads WHERE grant_id = ?', [grantId]);
      },
    };
  }

  /** The factory oidc-provider's `adapter` setting takes. */
  get factory(): AdapterFactory {
    return (model) => this.adapterFor(model);
  }

  async deleteExpired(): Promise<number> {
    const now = epochNow();
    const payloads = await this.sql.run(
      'DELETE FROM oidc_payloads WHERE expires_at IS NOT NULL AND expires_at <= ?',
      [now],
    );
    const revocations = await this.sql.run('DELETE FROM revoked_access_tokens WHERE expires_at <= ?', [now]);
    return payloads.changes + revocations.changes;
  }

  async isTokenAlive(token: TokenSession): Promise<boolean> {
    const row = await this.sql.get<{ alive: number }>(
      `SELECT ${TOKEN_ALIVE_SQL} AS alive`,
      tokenAliveParams(token, epochNow()),
    );
    return row?.alive === 1;
  }

  async revokeAccessToken(jti: string, expiresAt: number): Promise<void> {
    await this.sql.run(
      'INSERT INTO revoked_access_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING',
      [jti, expiresAt],
    );
  }

  private sessionPayload(sql: Sql, accountId: string, sessionUid: string) {
    return sql.get<{ payload: string }>(
      `SELECT payload FROM oidc_payloads WHERE model = 'Session' AND account_id = ? AND uid = ?`,
      [accountId, sessionUid],
    );
  }

  async sessionLoginTime(accountId: string, sessionUid: string): Promise<number | undefined> {
    const row = await this.sessionPayload(this.sql, accountId, sessionUid);
    if (!row) return undefined;
    const { loginTs } = JSON.parse(row.payload) as { loginTs?: unknown };
    return typeof loginTs === 'number' ? loginTs : undefined;
  }

  /**
   * Ends every provider session of the account except `keepSessionUid` (the `sid` of the caller's access
   * token), with the grants, refresh tokens and codes that belong to them, and any sign-in in progress that
   * already passed the password step: Okta's revokeSessions, minus the session making the change. Access tokens
   * of the ended sessions are refused from then on (isTokenAlive). Run it inside the caller's transaction (it
   * opens one of its own otherwise).
   */
  revokeAccountExcept(accountId: string, keepSessionUid: string | undefined): Promise<RevokedSessions> {
    return this.sql.transaction(async (tx) => {
      const keep = keepSessionUid ?? null;
      const keptGrants = new Set<string>();
      if (keepSessionUid) {
        const session = await this.sessionPayload(tx, accountId, keepSessionUid);
        if (session) {
          const { authorizations = {} } = JSON.parse(session.payload) as {
            authorizations?: Record<string, { grantId?: string }>;
          };
          for (const { grantId } of Object.values(authorizations)) if (grantId) keptGrants.add(grantId);
        }
        const rows = await tx.all<{ grant_id: string }>(
          `SELECT DISTINCT grant_id FROM oidc_payloads
           WHERE account_id = ? AND session_uid = ? AND grant_id IS NOT NULL`,
          [accountId, keepSessionUid],
        );
        for (const row of rows) keptGrants.add(row.grant_id);
      }
      const kept = [...keptGrants];
      // NOT IN over an empty list would match nothing (NULL): no kept grant means every grant goes.
      const notKept = (column: string) => {
        if (kept.length === 0) return { text: '', params: [] };
        const list = inList(kept);
        return { text: ` AND ${column} NOT ${list.text}`, params: list.params };
      };
      const ended = (
        await tx.all<{ uid: string }>(
          `SELECT uid FROM oidc_payloads
           WHERE model = 'Session' AND account_id = ? AND uid IS NOT NULL AND uid IS DISTINCT FROM ?`,
          [accountId, keep],
        )
      ).map((row) => row.uid);
      const grantFilter = notKept('id');
      const grants = (
        await tx.run(
          `DELETE FROM oidc_payloads WHERE model = 'Grant' AND account_id = ?${grantFilter.text}`,
          [accountId, ...grantFilter.params],
        )
      ).changes;
      const tokenFilter = notKept('grant_id');
      const grantTokens = await tx.run(
        `DELETE FROM oidc_payloads WHERE account_id = ? AND model <> 'Grant' AND grant_id IS NOT NULL${tokenFilter.text}`,
        [accountId, ...tokenFilter.params],
      );
      const sessionTokens = await tx.run(
        `DELETE FROM oidc_payloads WHERE account_id = ? AND model NOT IN ('Session', 'Grant')
           AND session_uid IS NOT NULL AND session_uid IS DISTINCT FROM ?`,
        [accountId, keep],
      );
      const sessions = (
        await tx.run(
          `DELETE FROM oidc_payloads WHERE model = 'Session' AND account_id = ? AND uid IS DISTINCT FROM ?`,
          [accountId, keep],
        )
      ).changes;
      // Sign-ins in progress that already passed the password step (a second step may hold the account id).
      const path = (json: string) =>
        tx.dialect === 'sqlite'
          ? `json_extract(payload, '$.${json}')`
          : `(payload::jsonb #>> '{${json.replaceAll('.', ',')}}')`;
      const interactions = (
        await tx.run(
          `DELETE FROM oidc_payloads WHERE model = 'Interaction' AND (
             ${path('result.portal.accountId')} = ? OR ${path('result.login.accountId')} = ?)`,
          [accountId, accountId],
        )
      ).changes;
      if (ended.length > 0) await this.onSessionsEnded(tx, accountId, ended);
      return { sessions, grants, tokens: grantTokens.changes + sessionTokens.changes, interactions };
    });
  }

  async grantsOfAccount(accountId: string): Promise<{ grantId: string; sessionUid: string | null }[]> {
    const rows = await this.sql.all<{ grant_id: string; session_uid: string | null }>(
      `SELECT DISTINCT grant_id, session_uid FROM oidc_payloads
       WHERE account_id = ? AND grant_id IS NOT NULL AND ${LIVE}`,
      [accountId, epochNow()],
    );
    return rows.map((row) => ({ grantId: row.grant_id, sessionUid: row.session_uid }));
  }
}
