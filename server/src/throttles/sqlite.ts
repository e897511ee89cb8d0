import type { Db } from '../db/connection.js';
import type { ThrottleEvents } from './throttle.js';

/** Where one throttle's events live: a table, its key and time columns, and the kind within a shared table. */
export interface ThrottleTable {
  table: 'password_change_failures' | 'signin_failures' | 'factor_throttle_events';
  key: 'user_id' | 'key';
  at: 'failed_at' | 'at';
  kind?: 'wrong-code' | 'email-send';
  /**
   * What a reservation deletes first: the key's events that no longer count, every key's (a spray of new keys
   * cannot grow the table past one window), or nothing (a periodic prune does it).
   */
  pruneOnReserve: 'key' | 'all' | 'none';
}

export const PASSWORD_CHANGE_EVENTS: ThrottleTable = {
  table: 'password_change_failures',
  key: 'user_id',
  at: 'failed_at',
  pruneOnReserve: 'key',
};
export const SIGN_IN_EVENTS: ThrottleTable = {
  table: 'signin_failures',
  key: 'key',
  at: 'at',
  pruneOnReserve: 'all',
};
export const WRONG_CODE_EVENTS: ThrottleTable = {
  table: 'factor_throttle_events',
  key: 'user_id',
  at: 'at',
  kind: 'wrong-code',
  pruneOnReserve: 'none',
};
export const EMAIL_SEND_EVENTS: ThrottleTable = {
  table: 'factor_throttle_events',
  key: 'user_id',
  at: 'at',
  kind: 'email-send',
  pruneOnReserve: 'none',
};

/** A throttle's events in SQLite (migrations 003, 004, 006); statements are prepared once. */
export class SqliteThrottleEvents implements ThrottleEvents {
  private readonly s;
  private readonly reserveImmediate: (key: string, at: number, since: number, max: number) => number[];

  constructor(db: Db, spec: ThrottleTable) {
    const { table, key, at, kind } = spec;
    // The kind is a constant of this file, never input.
    const ofKind = kind === undefined ? '' : ` AND kind = '${kind}'`;
    this.s = {
      since: db
        .prepare<[string, number], number>(
          `SELECT ${at} FROM ${table} WHERE ${key} = ?${ofKind} AND ${at} > ? ORDER BY ${at}`,
        )
        .pluck(),
      insert:
        kind === undefined
          ? db.prepare<[string, number]>(`INSERT INTO ${table} (${key}, ${at}) VALUES (?, ?)`)
          : db.prepare<[string, number]>(
              `INSERT INTO ${table} (${key}, kind, ${at}) VALUES (?, '${kind}', ?)`,
            ),
      remove: db.prepare<[string, number]>(
        `DELETE FROM ${table} WHERE rowid = (
           SELECT rowid FROM ${table} WHERE ${key} = ?${ofKind} AND ${at} = ? LIMIT 1)`,
      ),
      clear: db.prepare<[string]>(`DELETE FROM ${table} WHERE ${key} = ?${ofKind}`),
      pruneKey: db.prepare<[string, number]>(`DELETE FROM ${table} WHERE ${key} = ?${ofKind} AND ${at} <= ?`),
      prune: db.prepare<[number]>(`DELETE FROM ${table} WHERE ${at} <= ?${ofKind}`),
    };
    const s = this.s;
    const { pruneOnReserve } = spec;
    // IMMEDIATE: the check and the record are one step for every process that shares the file.
    const reserve = db.transaction((id: string, now: number, since: number, max: number): number[] => {
      if (pruneOnReserve === 'all') s.prune.run(since);
      const times = s.since.all(id, since);
      if (times.length >= max) return times;
      if (pruneOnReserve === 'key') s.pruneKey.run(id, since);
      s.insert.run(id, now);
      return times;
    });
    this.reserveImmediate = (id, now, since, max) => reserve.immediate(id, now, since, max);
  }

  since(key: string, since: number): number[] {
    return this.s.since.all(key, since);
  }

  reserve(key: string, at: number, since: number, max: number): number[] {
    return this.reserveImmediate(key, at, since, max);
  }

  remove(key: string, at: number): void {
    this.s.remove.run(key, at);
  }

  clear(key: string): void {
    this.s.clear.run(key);
  }

  prune(before: number): number {
    return this.s.prune.run(before).changes;
  }
}
