/**
 * The embedded provider's store: oidc-provider's models (sessions, grants, codes, refresh tokens, interactions) in
 * `oidc_payloads`, the revoked access tokens, and what the API asks of them on every call. oidc/adapter.ts hands
 * the models to oidc-provider as its Adapter.
 */
import { createHash } from 'node:crypto';
import type { AdapterPayload } from 'oidc-provider';
import type { SecretBox } from '../crypto/secret-box.js';
import { writeLater, type Sql, type SqlValue } from '../db/sql.js';
import { interactionAccountOf, openPayload, sealPayload } from './sealing.js';
import { rowToUser, type User, type UserRow } from './users.js';

const epochNow = () => Math.floor(Date.now() / 1000);

interface PayloadRow {
  id: string;
  payload: string;
  consumed_at: number | null;
}

/** SHA-256, base64url: how every provider id is kept (PostgreSQL's migration 005 computes the same in SQL). */
export function hashedId(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

/**
 * Every model's id is kept only as its SHA-256 hash: a session cookie, a refresh token, a code, an interaction
 * cookie, and a Grant's id too, with the session uids and grant ids in the `uid`, `session_uid` and `grant_id`
 * columns. An access token's `sid` and `gid` are checked against those hashes (TOKEN_ALIVE), so a copy of
 * the database names no session or grant a forged token could carry, and redeems nothing.
 */
export function storedIdOf(_model: string, id: string): string {
  return hashedId(id);
}

const hashedOrNull = (value: unknown) => (typeof value === 'string' ? hashedId(value) : null);

/**
 * Two tabs that refresh at the same moment send the same refresh token; the second would count as a replay and
 * revoke the whole grant (signing the user out). As Okta does, the token just rotated stays usable this long; a
 * reuse within it mints a successor that revokes the one minted before (one live token per grant: upsert).
 * Measured: two refreshes of one token sent at the same moment to the real app over loopback (20 pairs each, on
 * 2 busy cores) were both answered within 177 ms (SQLite) and 696 ms (PostgreSQL) at worst; 5 s leaves room for
 * a slow network, and no more time than that to use a copied token unnoticed.
 */
export const REFRESH_TOKEN_REUSE_GRACE_SECONDS = 5;

export interface RevokedSessions {
  sessions: number;
  grants: number;
  tokens: number;
  interactions: number;
}

export interface ProviderStoreOptions {
  /** Seals every payload at rest (keys/at-rest.ts: derived from KEY_RING_ENCRYPTION_KEY). */
  records: SecretBox;
  /**
   * Called inside the transaction that deletes a provider session (sign-out, or another session's revocation),
   * so what hangs on the session (step-up grants) ends with it, atomically: `tx` is that transaction.
   */
  onSessionsEnded?: (tx: Sql, accountId: string, sessionUids: string[]) => Promise<unknown>;
  /** Called after a new grant was saved (grantCreated): `sql` is the store's. */
  onGrantCreated?: (sql: Sql, accountId: string, sessionUid: string, grantId: string) => Promise<unknown>;
  /** Called inside the transaction where a reuse within the grace revoked a chain's live refresh token. */
  onChainForked?: (tx: Sql, accountId: string, sessionUid: string, grantId: string) => Promise<unknown>;
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
  /**
   * Saves a model's payload under the provider's id (kept hashed), expiring in `expiresIn` seconds. `alongside`:
   * writes that commit with it, in one transaction (a finished sign-in's activity event).
   */
  upsert(
    model: string,
    id: string,
    payload: AdapterPayload,
    expiresIn: number,
    alongside?: (tx: Sql) => Promise<void>,
  ): Promise<void>;
  /** A live payload by the provider's id. */
  find(model: string, id: string): Promise<AdapterPayload | undefined>;
  /** A live payload by its `uid` (sessions). */
  findByUid(model: string, uid: string): Promise<AdapterPayload | undefined>;
  /** A live payload by its user code. */
  findByUserCode(model: string, userCode: string): Promise<AdapterPayload | undefined>;
  /** Marks a payload consumed (the first consumption counts). */
  consume(model: string, id: string): Promise<void>;
  /**
   * Deletes a payload; a Session's step-up grants end with it (onSessionsEnded). `alongside`: for a Session of an
   * account, writes that commit with its deletion (a sign-out's activity event), given the account.
   */
  destroy(
    model: string,
    id: string,
    alongside?: (tx: Sql, accountId: string) => Promise<void>,
  ): Promise<void>;
  /** Deletes every payload of a grant. */
  revokeByGrantId(grantId: string): Promise<void>;
  /** Deletes rows past their expiry; returns how many went. */
  deleteExpired(): Promise<number>;
  /**
   * Whether an access token's sign-in session (`sid`) and grant (`gid`) of this account still exist and the
   * token itself was not revoked.
   */
  isTokenAlive(token: TokenSession): Promise<boolean>;
  /**
   * The token's liveness (as isTokenAlive) and its account's user, in one round trip: asked on every
   * authenticated call. `user` is undefined when the account no longer exists.
   */
  tokenAccount(token: TokenSession): Promise<{ alive: boolean; user: User | undefined }>;
  /** Refuses an access token (a JWT, not stored) until it expires: /v1/revoke of an access token. */
  revokeAccessToken(jti: string, expiresAt: number): Promise<void>;
  /** When the account's session `uid` signed in (loginTs, seconds), or undefined when it no longer exists. */
  sessionLoginTime(accountId: string, sessionUid: string): Promise<number | undefined>;
  /**
   * Ends every grant, refresh token and code of the account, the kept session's too, and every provider session
   * but `keepSessionUid` (its cookie then creates a fresh grant silently). Run it inside the caller's transaction.
   */
  endAccountGrantsKeepingSession(
    accountId: string,
    keepSessionUid: string | undefined,
  ): Promise<RevokedSessions>;
  /**
   * Ends sessions of the account chosen on the Devices list, each with its grants, refresh tokens and codes (their
   * access tokens are refused from the next call: the session check), its step-up grants and its Devices row
   * (onSessionsEnded), in one transaction (the caller's, when the store is a transaction's). `only`: the session
   * whose uid hashes to this; `except`: every session but the one whose uid hashes to this (null: every one).
   * Sign-ins in progress are left: they have no session yet.
   */
  endSessions(
    accountId: string,
    which: { only: string } | { except: string | null },
  ): Promise<RevokedSessions>;
  /**
   * A new grant (one authorization: a grant chain) was created in provider session `sessionUid`: what waits for
   * that session's next chain (a step-up carried over a change) moves to it.
   */
  grantCreated(accountId: string, sessionUid: string, grantId: string): Promise<void>;
  /** The live grants of an account with the session each belongs to. */
  grantsOfAccount(accountId: string): Promise<{ grantId: string; sessionUid: string | null }[]>;
  /** How many unexpired interactions are stored (the provider's edge bounds them, oidc/edge.ts). */
  countLiveInteractions(): Promise<number>;
}

/**
 * The per-call check as an SQL expression (1 or 0) over ? parameters: the hashes of sid, account, hash of gid,
 * account, jti, now×2 (tokenAliveParams).
 */
const TOKEN_ALIVE = `CASE WHEN
     EXISTS (SELECT 1 FROM oidc_payloads WHERE model = 'Session' AND uid = ? AND account_id = ?
               AND (expires_at IS NULL OR expires_at > ?))
     AND EXISTS (SELECT 1 FROM oidc_payloads WHERE model = 'Grant' AND id = ? AND account_id = ?
               AND (expires_at IS NULL OR expires_at > ?))
     AND NOT EXISTS (SELECT 1 FROM revoked_access_tokens WHERE jti = ?)
   THEN 1 ELSE 0 END`;

/** The parameters of TOKEN_ALIVE, in order. */
function tokenAliveParams(
  token: TokenSession,
  now: number,
): [string, string, number, string, string, number, string] {
  return [hashedId(token.sid), token.accountId, now, hashedId(token.gid), token.accountId, now, token.jti];
}

/**
 * The user row and the liveness check as one statement: a one-row select left-joined to the user, so a missing
 * user still answers (alive, no user).
 */
const TOKEN_ACCOUNT = `SELECT ${TOKEN_ALIVE} AS alive, users.*
  FROM (SELECT 1 AS one) AS one LEFT JOIN users ON users.id = ?`;

const UPSERT = `INSERT INTO oidc_payloads (model, id, payload, grant_id, user_code, uid, account_id, session_uid, expires_at, consumed_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
  ON CONFLICT (model, id) DO UPDATE SET
    payload = excluded.payload, grant_id = excluded.grant_id, user_code = excluded.user_code,
    uid = excluded.uid, account_id = excluded.account_id, session_uid = excluded.session_uid,
    expires_at = excluded.expires_at, consumed_at = NULL`;

const LIVE = '(expires_at IS NULL OR expires_at > ?)';

/** What the store reads in a Session's payload. */
interface SessionPayload {
  uid?: unknown;
  loginTs?: unknown;
  authorizations?: Record<string, { grantId?: string }>;
}

/**
 * oidc-provider's storage (sessions, grants, codes, refresh tokens, interactions) over `Sql`: every write is
 * committed before the provider goes on.
 */
export class SqlProviderStore implements ProviderStore {
  private readonly onSessionsEnded: NonNullable<ProviderStoreOptions['onSessionsEnded']>;
  private readonly onGrantCreated: NonNullable<ProviderStoreOptions['onGrantCreated']>;
  private readonly onChainForked: NonNullable<ProviderStoreOptions['onChainForked']>;
  private readonly records: SecretBox;

  constructor(
    private readonly sql: Sql,
    options: ProviderStoreOptions,
  ) {
    this.records = options.records;
    this.onSessionsEnded = options.onSessionsEnded ?? (async () => undefined);
    this.onGrantCreated = options.onGrantCreated ?? (async () => undefined);
    this.onChainForked = options.onChainForked ?? (async () => undefined);
  }

  private decode(model: string, id: string, row: PayloadRow | undefined): AdapterPayload | undefined {
    if (!row) return undefined;
    const payload = openPayload(this.records, model, row.id, row.payload);
    // The id is not stored (only its hash): give the provider back the one it asked with.
    if (id !== '') payload.jti = id;
    if (row.consumed_at === null) return payload;
    const inGrace =
      model === 'RefreshToken' && epochNow() - row.consumed_at <= REFRESH_TOKEN_REUSE_GRACE_SECONDS;
    return inGrace ? payload : { ...payload, consumed: row.consumed_at };
  }

  private async findBy(model: string, column: 'id' | 'uid' | 'user_code', value: string, id: string) {
    const row = await this.sql.get<PayloadRow>(
      `SELECT id, payload, consumed_at FROM oidc_payloads WHERE model = ? AND ${column} = ? AND ${LIVE}`,
      [model, value, epochNow()],
    );
    return this.decode(model, id, row);
  }

  find(model: string, id: string): Promise<AdapterPayload | undefined> {
    return this.findBy(model, 'id', storedIdOf(model, id), id);
  }

  // Only sessions are looked up by uid, to check that one still exists; its id is not needed there.
  findByUid(model: string, uid: string): Promise<AdapterPayload | undefined> {
    return this.findBy(model, 'uid', hashedId(uid), '');
  }

  findByUserCode(model: string, userCode: string): Promise<AdapterPayload | undefined> {
    return this.findBy(model, 'user_code', userCode, '');
  }

  async upsert(
    model: string,
    id: string,
    payload: AdapterPayload,
    expiresIn: number,
    alongside?: (tx: Sql) => Promise<void>,
  ): Promise<void> {
    const stored: AdapterPayload = { ...payload };
    delete stored.jti;
    const storedId = storedIdOf(model, id);
    const grantColumn = hashedOrNull(payload.grantId);
    const row = [
      model,
      storedId,
      sealPayload(this.records, model, storedId, stored),
      grantColumn,
      payload.userCode ?? null,
      hashedOrNull(payload.uid),
      (model === 'Interaction' ? interactionAccountOf(payload) : null) ?? payload.accountId ?? null,
      hashedOrNull((payload as { sessionUid?: unknown }).sessionUid),
      Number.isFinite(expiresIn) ? epochNow() + expiresIn : null,
    ];
    if (alongside && (model !== 'RefreshToken' || grantColumn === null)) {
      await this.sql.transaction(async (tx) => {
        // On PostgreSQL it rides with what `alongside` writes (db/sql.ts writeLater): one round trip for both.
        await writeLater(tx, UPSERT, row);
        await alongside(tx);
      });
      return;
    }
    if (model !== 'RefreshToken' || grantColumn === null) {
      await this.sql.run(UPSERT, row);
      return;
    }
    // One live refresh token per grant chain: a successor minted by a reuse within the grace revokes the one
    // minted before it, in the same write transaction (write transactions run one at a time on SQLite and,
    // under the advisory write lock, on PostgreSQL), so concurrent refreshes leave exactly one. Used ones stay:
    // a replay after the grace still ends the grant.
    // A live one revoked means the chain forked (a reuse within the grace): whatever step-up the chain held
    // could be a branch's that the other now holds, so it ends with it (onChainForked).
    await this.sql.transaction(async (tx) => {
      const changes = await this.revokeOthersAndStore(tx, grantColumn, storedId, row);
      await alongside?.(tx);
      const { accountId, grantId, sessionUid } = payload as {
        accountId?: unknown;
        grantId?: unknown;
        sessionUid?: unknown;
      };
      if (
        changes > 0 &&
        typeof accountId === 'string' &&
        typeof grantId === 'string' &&
        typeof sessionUid === 'string'
      ) {
        await this.onChainForked(tx, accountId, sessionUid, grantId);
      }
    });
  }

  /**
   * Deletes the chain's other live refresh tokens and stores this one; returns how many it deleted. On PostgreSQL
   * one statement (one round trip; SQLite takes no writes in WITH): the two touch different rows (id <> and =).
   */
  private async revokeOthersAndStore(
    tx: Sql,
    grantColumn: string,
    storedId: string,
    row: SqlValue[],
  ): Promise<number> {
    const revoke = `DELETE FROM oidc_payloads
      WHERE model = 'RefreshToken' AND grant_id = ? AND consumed_at IS NULL AND id <> ?`;
    if (tx.dialect === 'postgres') {
      const answer = await tx.get<{ revoked: number }>(
        `WITH revoked AS (${revoke} RETURNING 1), stored AS (${UPSERT}) SELECT count(*) AS revoked FROM revoked`,
        [grantColumn, storedId, ...row],
      );
      return answer?.revoked ?? 0;
    }
    const { changes } = await tx.run(revoke, [grantColumn, storedId]);
    await tx.run(UPSERT, row);
    return changes;
  }

  async consume(model: string, id: string): Promise<void> {
    // The first consumption counts: a second use inside the grace period must not extend it.
    await this.sql.run(
      'UPDATE oidc_payloads SET consumed_at = coalesce(consumed_at, ?) WHERE model = ? AND id = ?',
      [epochNow(), model, storedIdOf(model, id)],
    );
  }

  async destroy(
    model: string,
    id: string,
    alongside?: (tx: Sql, accountId: string) => Promise<void>,
  ): Promise<void> {
    const key = storedIdOf(model, id);
    if (model !== 'Session') {
      await this.sql.run('DELETE FROM oidc_payloads WHERE model = ? AND id = ?', [model, key]);
      return;
    }
    await this.sql.transaction(async (tx) => {
      const owner = await tx.get<{ payload: string; account_id: string | null }>(
        `SELECT payload, account_id FROM oidc_payloads WHERE model = 'Session' AND id = ?`,
        [key],
      );
      await tx.run('DELETE FROM oidc_payloads WHERE model = ? AND id = ?', [model, key]);
      // The uid column holds its hash: the step-up grants are keyed by the uid itself, in the payload.
      const uid = owner && openPayload<{ uid?: unknown }>(this.records, 'Session', key, owner.payload).uid;
      if (owner?.account_id && typeof uid === 'string')
        await this.onSessionsEnded(tx, owner.account_id, [uid]);
      if (owner?.account_id && alongside) await alongside(tx, owner.account_id);
    });
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.sql.run('DELETE FROM oidc_payloads WHERE grant_id = ?', [hashedId(grantId)]);
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
      `SELECT ${TOKEN_ALIVE} AS alive`,
      tokenAliveParams(token, epochNow()),
    );
    return row?.alive === 1;
  }

  async tokenAccount(token: TokenSession): Promise<{ alive: boolean; user: User | undefined }> {
    const row = await this.sql.get<{ alive: number } & Partial<UserRow>>(TOKEN_ACCOUNT, [
      ...tokenAliveParams(token, epochNow()),
      token.accountId,
    ]);
    return { alive: row?.alive === 1, user: row?.id ? rowToUser(row as UserRow) : undefined };
  }

  async revokeAccessToken(jti: string, expiresAt: number): Promise<void> {
    await this.sql.run(
      'INSERT INTO revoked_access_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING',
      [jti, expiresAt],
    );
  }

  /** The account's session `sessionUid` (its payload, opened), if it exists. */
  private async sessionPayload(sql: Sql, accountId: string, sessionUid: string) {
    const row = await sql.get<{ id: string; payload: string }>(
      `SELECT id, payload FROM oidc_payloads WHERE model = 'Session' AND account_id = ? AND uid = ?`,
      [accountId, hashedId(sessionUid)],
    );
    return row && openPayload<SessionPayload>(this.records, 'Session', row.id, row.payload);
  }

  async sessionLoginTime(accountId: string, sessionUid: string): Promise<number | undefined> {
    const { loginTs } = (await this.sessionPayload(this.sql, accountId, sessionUid)) ?? {};
    return typeof loginTs === 'number' ? loginTs : undefined;
  }

  /**
   * A password or 2-step change: ends every grant of the account with its refresh tokens and codes, the caller's
   * included (a copied refresh token may be a branch of the caller's grant, and would otherwise live on in the
   * caller's session), every provider session but `keepSessionUid` (the `sid` of the caller's access token), and
   * any sign-in in progress that already passed the password step: Okta's revokeSessions, minus the caller's
   * session, which keeps its cookie and so creates a fresh grant silently (prompt=none). Access tokens of the
   * ended grants are refused from then on (isTokenAlive), the caller's too. Run it inside the caller's transaction
   * (it opens one of its own otherwise).
   */
  endAccountGrantsKeepingSession(
    accountId: string,
    keepSessionUid: string | undefined,
  ): Promise<RevokedSessions> {
    return this.sql.transaction(async (tx) => {
      // Columns hold hashes (uid, session_uid, grant_id, a Grant's id): compare hashes.
      const keep = keepSessionUid === undefined ? null : hashedId(keepSessionUid);
      // One statement (a round trip on PostgreSQL): every row of the account but the kept session: its grants,
      // its tokens and codes (every other model), its other sessions, and the sign-ins in progress that already
      // passed the password step (an Interaction's account is in the account_id column, its payload is sealed).
      const rows = await tx.all<{ model: string; id: string; payload: string | null }>(
        `DELETE FROM oidc_payloads
         WHERE account_id = ? AND NOT (model = 'Session' AND uid IS NOT DISTINCT FROM ?)
         RETURNING model, id, CASE WHEN model = 'Session' AND uid IS NOT NULL THEN payload END AS payload`,
        [accountId, keep],
      );
      const revoked = { sessions: 0, grants: 0, tokens: 0, interactions: 0 };
      // The step-up grants are keyed by the uid itself: read it from each ended session's payload.
      const ended: string[] = [];
      for (const row of rows) {
        if (row.model === 'Session') {
          revoked.sessions += 1;
          const uid =
            row.payload === null
              ? undefined
              : openPayload<SessionPayload>(this.records, 'Session', row.id, row.payload).uid;
          if (typeof uid === 'string') ended.push(uid);
        } else if (row.model === 'Grant') revoked.grants += 1;
        else if (row.model === 'Interaction') revoked.interactions += 1;
        else revoked.tokens += 1;
      }
      if (ended.length > 0) await this.onSessionsEnded(tx, accountId, ended);
      return revoked;
    });
  }

  endSessions(
    accountId: string,
    which: { only: string } | { except: string | null },
  ): Promise<RevokedSessions> {
    return this.sql.transaction(async (tx) => {
      const rows =
        'only' in which
          ? await tx.all<{ id: string; uid: string; payload: string }>(
              `SELECT id, uid, payload FROM oidc_payloads WHERE model = 'Session' AND account_id = ? AND uid = ?`,
              [accountId, which.only],
            )
          : await tx.all<{ id: string; uid: string; payload: string }>(
              `SELECT id, uid, payload FROM oidc_payloads
               WHERE model = 'Session' AND account_id = ? AND uid IS NOT NULL AND uid IS DISTINCT FROM ?`,
              [accountId, which.except],
            );
      const ended = { sessions: 0, grants: 0, tokens: 0, interactions: 0 };
      const uids: string[] = [];
      for (const row of rows) {
        const session = openPayload<SessionPayload>(this.records, 'Session', row.id, row.payload);
        if (typeof session.uid === 'string') uids.push(session.uid);
        // The session's grant chains (one per client it signed in to), by the hash their rows are kept under.
        for (const authorization of Object.values(session.authorizations ?? {})) {
          if (typeof authorization.grantId !== 'string') continue;
          const grant = hashedId(authorization.grantId);
          ended.grants += (
            await tx.run(`DELETE FROM oidc_payloads WHERE model = 'Grant' AND id = ? AND account_id = ?`, [
              grant,
              accountId,
            ])
          ).changes;
          ended.tokens += (
            await tx.run(
              `DELETE FROM oidc_payloads
               WHERE grant_id = ? AND account_id = ? AND model NOT IN ('Session', 'Grant', 'Interaction')`,
              [grant, accountId],
            )
          ).changes;
        }
        ended.tokens += (
          await tx.run(
            `DELETE FROM oidc_payloads
             WHERE session_uid = ? AND account_id = ? AND model NOT IN ('Session', 'Grant', 'Interaction')`,
            [row.uid, accountId],
          )
        ).changes;
        ended.sessions += (
          await tx.run(`DELETE FROM oidc_payloads WHERE model = 'Session' AND id = ?`, [row.id])
        ).changes;
      }
      if (uids.length > 0) await this.onSessionsEnded(tx, accountId, uids);
      return ended;
    });
  }

  async grantCreated(accountId: string, sessionUid: string, grantId: string): Promise<void> {
    await this.onGrantCreated(this.sql, accountId, sessionUid, grantId);
  }

  async grantsOfAccount(accountId: string): Promise<{ grantId: string; sessionUid: string | null }[]> {
    // The columns hold hashes: the ids themselves are in the payloads.
    const rows = await this.sql.all<{ model: string; id: string; payload: string }>(
      `SELECT model, id, payload FROM oidc_payloads
       WHERE account_id = ? AND grant_id IS NOT NULL AND model <> 'Interaction' AND ${LIVE}`,
      [accountId, epochNow()],
    );
    const seen = new Map<string, { grantId: string; sessionUid: string | null }>();
    for (const row of rows) {
      const { grantId, sessionUid } = openPayload<{ grantId?: unknown; sessionUid?: unknown }>(
        this.records,
        row.model,
        row.id,
        row.payload,
      );
      if (typeof grantId !== 'string') continue;
      const session = typeof sessionUid === 'string' ? sessionUid : null;
      seen.set(`${grantId} ${session ?? ''}`, { grantId, sessionUid: session });
    }
    return [...seen.values()];
  }

  async countLiveInteractions(): Promise<number> {
    // The primary key (model, id) leads with the model: an index range, not a table scan.
    const row = await this.sql.get<{ n: number | string }>(
      `SELECT COUNT(*) AS n FROM oidc_payloads WHERE model = 'Interaction' AND expires_at > ?`,
      [epochNow()],
    );
    // PostgreSQL's COUNT is a bigint, which its driver may hand over as a string.
    return Number(row?.n ?? 0);
  }
}
