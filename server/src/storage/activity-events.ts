/**
 * The account's security events (migration 016's `activity_events`): what happened (kind, detail), when, and from
 * which client (browser, system, device, country, coarse address). Appended in the transaction of the change each
 * records, listed newest first by keyset pages, deleted after 90 days. The interface and its SQL; what writes them
 * and when: activity/.
 */
import { randomInt } from 'node:crypto';
import type { ActivityEventKind, DeviceType } from 'shared-auth/contract';
import { writeLater, type Sql } from '../db/sql.js';
import { clientFactsOf, type ClientColumns } from './client-columns.js';

/** An event to write: the user's, of a kind, at a time (ms), from a described client. */
export interface NewActivityEvent {
  userId: string;
  kind: ActivityEventKind;
  detail: string | null;
  at: number;
  browser: string | null;
  os: string | null;
  deviceType: DeviceType | null;
  country: string | null;
  /** Coarse only (`203.0.113.x`, an IPv6 /48): the store never receives a full address. */
  address: string | null;
}

/** An event as kept. */
export interface ActivityEventRecord extends NewActivityEvent {
  id: string;
}

/** Where a page starts: strictly older than this event (its time, then its id). */
export interface ActivityCursor {
  at: number;
  id: string;
}

export interface ActivityListQuery {
  /** The page after this event; absent: the newest. */
  before?: ActivityCursor | undefined;
  /** Events at or after this time only (ms): the retention's reach, so a late prune shows nothing older. */
  since: number;
  limit: number;
}

export interface ActivityEventStore {
  /** Writes an event (in the caller's transaction when the store is a transaction's); returns its id. */
  append(event: NewActivityEvent): Promise<string>;
  /** The user's events, newest first (time, then id, descending), at most `limit`. */
  list(userId: string, query: ActivityListQuery): Promise<ActivityEventRecord[]>;
  /** One event of the user's, at or after `since` (ms); undefined for another account's id or none. */
  find(userId: string, id: string, since: number): Promise<ActivityEventRecord | undefined>;
  /** Deletes every event older than `cutoff` (ms); returns how many. */
  deleteOlderThan(cutoff: number): Promise<number>;
}

const RANDOM_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 20 characters: a sequence (9 base-36 digits) then 11 random base62 characters (about 65 bits). */
export const ACTIVITY_ID_LENGTH = 20;
const SEQUENCE_DIGITS = 9;
const SEQUENCE_SPAN = 36 ** SEQUENCE_DIGITS;
/**
 * This process's sequence, from a random start: two events of one millisecond (a change and the sign-in right
 * after it, in a test) list in the order they were written. Digits and upper-case letters only, of one width, so
 * every collation (PostgreSQL's en_US too) sorts them as written. Across instances, a tie keeps any order.
 */
let sequence = randomInt(0, SEQUENCE_SPAN / 2);

function newEventId(): string {
  sequence = (sequence + 1) % SEQUENCE_SPAN;
  let id = sequence.toString(36).toUpperCase().padStart(SEQUENCE_DIGITS, '0');
  while (id.length < ACTIVITY_ID_LENGTH) id += RANDOM_ALPHABET[randomInt(RANDOM_ALPHABET.length)];
  return id;
}

interface Row extends ClientColumns {
  id: string;
  user_id: string;
  kind: ActivityEventKind;
  detail: string | null;
  at: number;
}

const COLUMNS = 'id, user_id, kind, detail, at, browser, os, device_type, country, address';

function toRecord(row: Row): ActivityEventRecord {
  return {
    id: row.id,
    userId: row.user_id,
    kind: row.kind,
    detail: row.detail,
    at: Number(row.at),
    ...clientFactsOf(row),
  };
}

/** Activity events over `Sql`. */
export class SqlActivityEventStore implements ActivityEventStore {
  constructor(private readonly sql: Sql) {}

  async append(event: NewActivityEvent): Promise<string> {
    const id = newEventId();
    // In a change's transaction it rides with the next statement (db/sql.ts writeLater): the id is ours.
    await writeLater(
      this.sql,
      `INSERT INTO activity_events (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        id,
        event.userId,
        event.kind,
        event.detail,
        event.at,
        event.browser,
        event.os,
        event.deviceType,
        event.country,
        event.address,
      ],
    );
    return id;
  }

  async find(userId: string, id: string, since: number): Promise<ActivityEventRecord | undefined> {
    const row = await this.sql.get<Row>(
      `SELECT ${COLUMNS} FROM activity_events WHERE id = ? AND user_id = ? AND at >= ?`,
      [id, userId, since],
    );
    return row && toRecord(row);
  }

  async list(userId: string, { before, since, limit }: ActivityListQuery): Promise<ActivityEventRecord[]> {
    const rows = before
      ? await this.sql.all<Row>(
          `SELECT ${COLUMNS} FROM activity_events
           WHERE user_id = ? AND at >= ? AND (at < ? OR (at = ? AND id < ?))
           ORDER BY at DESC, id DESC LIMIT ?`,
          [userId, since, before.at, before.at, before.id, limit],
        )
      : await this.sql.all<Row>(
          `SELECT ${COLUMNS} FROM activity_events WHERE user_id = ? AND at >= ?
           ORDER BY at DESC, id DESC LIMIT ?`,
          [userId, since, limit],
        );
    return rows.map(toRecord);
  }

  async deleteOlderThan(cutoff: number): Promise<number> {
    return (await this.sql.run('DELETE FROM activity_events WHERE at < ?', [cutoff])).changes;
  }
}
