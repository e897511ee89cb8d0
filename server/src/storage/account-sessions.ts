/**
 * What the Devices list shows of each sign-in session of the embedded provider (migration 017's
 * `account_sessions`): the client as described at sign-in, when it signed in, when its tokens last reached the API.
 * Keyed by the provider session's uid, kept hashed as `oidc_payloads.uid` keeps it; listed only while that session
 * lives. A row goes with its session (the provider store's `onSessionsEnded`, storage/sql.ts) or, for a session
 * that expired, at the next prune. The interface and its SQL; what writes them and when: devices/.
 */
import { randomInt } from 'node:crypto';
import type { DeviceType } from 'shared-auth/contract';
import type { Sql } from '../db/sql.js';
import { hashedId } from './provider.js';
import { clientFactsOf, type ClientColumns } from './client-columns.js';

/** A session's row to write: the provider session's uid (clear; kept hashed) and its described client. */
export interface NewAccountSession {
  userId: string;
  sessionUid: string;
  browser: string | null;
  os: string | null;
  deviceType: DeviceType | null;
  country: string | null;
  /** Coarse only (`203.0.113.x`, an IPv6 /48): the store never receives a full address. */
  address: string | null;
  /** ms since the epoch. */
  signedInAt: number;
}

/** A live session's row. `sessionUidHash` is the provider session uid's hash (never sent to a browser). */
export interface AccountSessionRecord extends Omit<NewAccountSession, 'sessionUid'> {
  id: string;
  sessionUidHash: string;
  /** ms since the epoch, or null before its tokens reached the API. */
  lastActiveAt: number | null;
}

export interface AccountSessionStore {
  /**
   * Writes the row of a session that just signed in (in the provider's transaction that saves the session), unless
   * the session has one (a session saved again keeps its sign-in's). Nothing for an account not in the directory.
   */
  record(session: NewAccountSession): Promise<void>;
  /** The user's sessions whose provider session still lives (`nowSeconds`: the provider's clock, in seconds). */
  listLive(userId: string, nowSeconds: number): Promise<AccountSessionRecord[]>;
  /** One live session of the user by its id, or undefined (unknown, another account's, or ended). */
  findLive(userId: string, id: string, nowSeconds: number): Promise<AccountSessionRecord | undefined>;
  /**
   * Moves the session's "last active" to `at` when it is older than `notAfter` (or unset): true when it moved. One
   * conditional update, so instances that race leave one write a minute at most.
   */
  touch(sessionUid: string, at: number, notAfter: number): Promise<boolean>;
  /** Deletes the rows of these provider sessions (clear uids) of the user: their sessions ended. */
  deleteOfSessions(userId: string, sessionUids: readonly string[]): Promise<number>;
  /** Deletes the rows whose provider session no longer exists (expired and deleted); returns how many. */
  pruneOrphans(): Promise<number>;
}

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 20 random base62 characters (about 119 bits): the list's id of a session, unrelated to any provider id. */
export const ACCOUNT_SESSION_ID_LENGTH = 20;

/** A new list id of a session (also Okta mode's, storage/org-sessions.ts). */
export function newAccountSessionId(): string {
  let id = '';
  while (id.length < ACCOUNT_SESSION_ID_LENGTH) id += ALPHABET[randomInt(ALPHABET.length)];
  return id;
}

interface Row extends ClientColumns {
  id: string;
  user_id: string;
  session_uid: string;
  signed_in_at: number | string;
  last_active_at: number | string | null;
}

function fromRow(row: Row): AccountSessionRecord {
  return {
    id: row.id,
    userId: row.user_id,
    sessionUidHash: row.session_uid,
    ...clientFactsOf(row),
    signedInAt: Number(row.signed_in_at),
    lastActiveAt: row.last_active_at === null ? null : Number(row.last_active_at),
  };
}

/** The row's provider session still exists, is the same account's and has not expired (? = now, in seconds). */
const SESSION_LIVES = `EXISTS (SELECT 1 FROM oidc_payloads p
    WHERE p.model = 'Session' AND p.uid = account_sessions.session_uid AND p.account_id = account_sessions.user_id
      AND (p.expires_at IS NULL OR p.expires_at > ?))`;

export class SqlAccountSessionStore implements AccountSessionStore {
  constructor(private readonly sql: Sql) {}

  async record(session: NewAccountSession): Promise<void> {
    await this.sql.run(
      `INSERT INTO account_sessions
         (id, user_id, session_uid, browser, os, device_type, country, address, signed_in_at, last_active_at)
       SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL WHERE EXISTS (SELECT 1 FROM users WHERE id = ?)
       ON CONFLICT (session_uid) DO NOTHING`,
      [
        newAccountSessionId(),
        session.userId,
        hashedId(session.sessionUid),
        session.browser,
        session.os,
        session.deviceType,
        session.country,
        session.address,
        session.signedInAt,
        session.userId,
      ],
    );
  }

  async listLive(userId: string, nowSeconds: number): Promise<AccountSessionRecord[]> {
    const rows = await this.sql.all<Row>(
      `SELECT * FROM account_sessions WHERE user_id = ? AND ${SESSION_LIVES}
       ORDER BY coalesce(last_active_at, signed_in_at) DESC, id`,
      [userId, nowSeconds],
    );
    return rows.map(fromRow);
  }

  async findLive(userId: string, id: string, nowSeconds: number): Promise<AccountSessionRecord | undefined> {
    const row = await this.sql.get<Row>(
      `SELECT * FROM account_sessions WHERE id = ? AND user_id = ? AND ${SESSION_LIVES}`,
      [id, userId, nowSeconds],
    );
    return row && fromRow(row);
  }

  async touch(sessionUid: string, at: number, notAfter: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE account_sessions SET last_active_at = ?
       WHERE session_uid = ? AND (last_active_at IS NULL OR last_active_at <= ?)`,
      [at, hashedId(sessionUid), notAfter],
    );
    return changes > 0;
  }

  async deleteOfSessions(userId: string, sessionUids: readonly string[]): Promise<number> {
    let deleted = 0;
    for (const uid of sessionUids) {
      deleted += (
        await this.sql.run('DELETE FROM account_sessions WHERE user_id = ? AND session_uid = ?', [
          userId,
          hashedId(uid),
        ])
      ).changes;
    }
    return deleted;
  }

  async pruneOrphans(): Promise<number> {
    const { changes } = await this.sql.run(`DELETE FROM account_sessions WHERE NOT ${SESSION_LIVES}`, [
      Math.floor(Date.now() / 1000),
    ]);
    return changes;
  }
}
