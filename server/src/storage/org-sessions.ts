/**
 * What the Devices list shows of each Okta sign-in in Okta mode (migration 020's `org_sessions`): the org's
 * sign-ins whose access tokens reached the API, each recorded at its first call, with its client as that call
 * described it and when its tokens last came. A sign-in signed out from the list keeps its row, ended, so the API
 * refuses its tokens; rows go once their tokens stopped coming for the retention window. Keyed by a hash of the
 * account and what names the sign-in in its tokens (auth/org-sign-in.ts), never a token. The interface and its SQL;
 * what writes them and when: devices/org-sessions.ts.
 */
import type { DeviceType } from 'shared-auth/contract';
import type { Sql } from '../db/sql.js';
import { newAccountSessionId } from './account-sessions.js';
import { hashedId } from './provider.js';
import { clientFactsOf, type ClientColumns } from './client-columns.js';

/** A sign-in's row to write: the sign-in's key (clear; kept hashed) and its described client. */
export interface NewOrgSession {
  userId: string;
  signIn: string;
  browser: string | null;
  os: string | null;
  deviceType: DeviceType | null;
  country: string | null;
  /** Coarse only (`203.0.113.x`, an IPv6 /48). */
  address: string | null;
  /** The tokens' `auth_time`, in ms since the epoch. */
  signedInAt: number;
}

/** A sign-in's row. `signInHash` never leaves the server. Times in ms since the epoch. */
export interface OrgSessionRecord extends Omit<NewOrgSession, 'signIn'> {
  id: string;
  signInHash: string;
  /** When its tokens last reached the API: accepted (the list's "last active"), or refused once ended. */
  lastSeenAt: number;
  /** When it was signed out from the list, or null. */
  endedAt: number | null;
}

/** Which sign-ins of an account a sign-out ends: one by the list's id, or all but one (the caller's hash). */
export type OrgSessionsToEnd = { only: string } | { except: string | null };

export interface OrgSessionStore {
  /**
   * The sign-in's tokens reached the API at `at`: its row is written if it has none (one statement: parallel first
   * calls make one row), else its last seen moves to `at` when not ended and last seen at `notAfter` or before.
   */
  seen(session: NewOrgSession, at: number, notAfter: number): Promise<void>;
  /** The row of this sign-in (clear key), or undefined. */
  find(signIn: string): Promise<OrgSessionRecord | undefined>;
  /** Moves an ended sign-in's last seen to `at` (its tokens were refused), when it is `notAfter` or before. */
  refused(signIn: string, at: number, notAfter: number): Promise<void>;
  /** The account's sign-ins not ended and seen after `seenAfter`, the most recently seen first. */
  listLive(userId: string, seenAfter: number): Promise<OrgSessionRecord[]>;
  /** One of them by the list's id, or undefined (unknown, another account's, ended, or not seen for too long). */
  findLive(userId: string, id: string, seenAfter: number): Promise<OrgSessionRecord | undefined>;
  /** Ends these sign-ins of the account at `at` (its tokens refused from then); returns how many it ended. */
  end(userId: string, which: OrgSessionsToEnd, at: number): Promise<number>;
  /** Deletes the rows not seen after `seenBefore`, ended or not; returns how many. */
  prune(seenBefore: number): Promise<number>;
}

interface Row extends ClientColumns {
  id: string;
  user_id: string;
  sign_in: string;
  signed_in_at: number | string;
  last_seen_at: number | string;
  ended_at: number | string | null;
}

function fromRow(row: Row): OrgSessionRecord {
  return {
    id: row.id,
    userId: row.user_id,
    signInHash: row.sign_in,
    ...clientFactsOf(row),
    signedInAt: Number(row.signed_in_at),
    lastSeenAt: Number(row.last_seen_at),
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
  };
}

export class SqlOrgSessionStore implements OrgSessionStore {
  constructor(private readonly sql: Sql) {}

  async seen(session: NewOrgSession, at: number, notAfter: number): Promise<void> {
    await this.sql.run(
      `INSERT INTO org_sessions
         (id, user_id, sign_in, browser, os, device_type, country, address, signed_in_at, last_seen_at, ended_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
       ON CONFLICT (sign_in) DO UPDATE SET last_seen_at = excluded.last_seen_at
       WHERE org_sessions.ended_at IS NULL AND org_sessions.last_seen_at <= ?`,
      [
        newAccountSessionId(),
        session.userId,
        hashedId(session.signIn),
        session.browser,
        session.os,
        session.deviceType,
        session.country,
        session.address,
        session.signedInAt,
        at,
        notAfter,
      ],
    );
  }

  async find(signIn: string): Promise<OrgSessionRecord | undefined> {
    const row = await this.sql.get<Row>('SELECT * FROM org_sessions WHERE sign_in = ?', [hashedId(signIn)]);
    return row && fromRow(row);
  }

  async refused(signIn: string, at: number, notAfter: number): Promise<void> {
    await this.sql.run(
      `UPDATE org_sessions SET last_seen_at = ?
       WHERE sign_in = ? AND ended_at IS NOT NULL AND last_seen_at <= ?`,
      [at, hashedId(signIn), notAfter],
    );
  }

  async listLive(userId: string, seenAfter: number): Promise<OrgSessionRecord[]> {
    const rows = await this.sql.all<Row>(
      `SELECT * FROM org_sessions WHERE user_id = ? AND ended_at IS NULL AND last_seen_at > ?
       ORDER BY last_seen_at DESC, id`,
      [userId, seenAfter],
    );
    return rows.map(fromRow);
  }

  async findLive(userId: string, id: string, seenAfter: number): Promise<OrgSessionRecord | undefined> {
    const row = await this.sql.get<Row>(
      `SELECT * FROM org_sessions WHERE id = ? AND user_id = ? AND ended_at IS NULL AND last_seen_at > ?`,
      [id, userId, seenAfter],
    );
    return row && fromRow(row);
  }

  async end(userId: string, which: OrgSessionsToEnd, at: number): Promise<number> {
    // last_seen_at moves too: the ended row (and the refusal of its tokens) lasts a whole window from now.
    const ending =
      'UPDATE org_sessions SET ended_at = ?, last_seen_at = ? WHERE user_id = ? AND ended_at IS NULL';
    const { changes } =
      'only' in which
        ? await this.sql.run(`${ending} AND id = ?`, [at, at, userId, which.only])
        : which.except === null
          ? await this.sql.run(ending, [at, at, userId])
          : await this.sql.run(`${ending} AND sign_in <> ?`, [at, at, userId, which.except]);
    return changes;
  }

  async prune(seenBefore: number): Promise<number> {
    const { changes } = await this.sql.run('DELETE FROM org_sessions WHERE last_seen_at <= ?', [seenBefore]);
    return changes;
  }
}
