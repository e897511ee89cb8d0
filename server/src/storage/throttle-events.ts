/**
 * Each throttle's stored events (the failed sign-ins, password changes, wrong codes and email sends the throttles
 * count; their limits: throttles/limits.ts): the interface and its SQL, one table spec per throttle.
 */
import { writeLater, type Sql, type SqlValue } from '../db/sql.js';

/** The stored attempts of one throttle (one per use), by key (a user id, an email's hash, a device). */
export interface ThrottleEvents {
  /** The key's event times after `since` (ms), oldest first. */
  since(key: string, since: number): Promise<number[]>;
  /**
   * One atomic step for every process that shares the storage: reads the key's times after `since` and, when
   * fewer than `max`, records one at `at`. Returns the times read (before the new one). Throws the storage
   * error when the attempt cannot be recorded: callers refuse the attempt (fail closed, 503).
   */
  reserve(key: string, at: number, since: number, max: number): Promise<number[]>;
  /** Takes back one event (an attempt that turned out not to count, e.g. an email that was not sent). */
  remove(key: string, at: number): Promise<void>;
  /** Forgets every event of the key (a right password or code). May run in a change's transaction. */
  clear(key: string): Promise<void>;
  /** Deletes events at or before `before`, of every key; returns how many. */
  prune(before: number): Promise<number>;
}

/** Where one throttle's events live: a table, its key and time columns, and the kind within a shared table. */
export interface ThrottleTable {
  table:
    'password_change_failures' | 'signin_failures' | 'factor_throttle_events' | 'password_reset_requests';
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
/** Password reset requests per typed email (migration 014). */
export const PASSWORD_RESET_REQUEST_EVENTS: ThrottleTable = {
  table: 'password_reset_requests',
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

/** A throttle's events (migrations 003, 004, 006) over `Sql`. */
export class SqlThrottleEvents implements ThrottleEvents {
  private readonly text;

  constructor(
    private readonly sql: Sql,
    private readonly spec: ThrottleTable,
  ) {
    const { table, key, at, kind } = spec;
    // The kind is a constant of this file, never input.
    const ofKind = kind === undefined ? '' : ` AND kind = '${kind}'`;
    // Neither table has a key of its own: one row of several equal ones is picked by the engine's row address.
    const rowAddress = sql.dialect === 'sqlite' ? 'rowid' : 'ctid';
    this.text = {
      since: `SELECT ${at} AS at FROM ${table} WHERE ${key} = ?${ofKind} AND ${at} > ? ORDER BY ${at}`,
      insert:
        kind === undefined
          ? `INSERT INTO ${table} (${key}, ${at}) VALUES (?, ?)`
          : `INSERT INTO ${table} (${key}, kind, ${at}) VALUES (?, '${kind}', ?)`,
      remove: `DELETE FROM ${table} WHERE ${rowAddress} = (
                 SELECT ${rowAddress} FROM ${table} WHERE ${key} = ?${ofKind} AND ${at} = ? LIMIT 1)`,
      clear: `DELETE FROM ${table} WHERE ${key} = ?${ofKind}`,
      pruneKey: `DELETE FROM ${table} WHERE ${key} = ?${ofKind} AND ${at} <= ?`,
      prune: `DELETE FROM ${table} WHERE ${at} <= ?${ofKind}`,
      // PostgreSQL: a reservation's prune, read and insert as one statement (one round trip; SQLite takes no
      // writes in WITH). Its parts see one snapshot, taken after the transaction's write lock: the read sees every
      // committed event, and neither the prune (times at or before `since`) nor the insert changes what it reads.
      reserve: `WITH ${
        spec.pruneOnReserve === 'all'
          ? `pruned AS (DELETE FROM ${table} WHERE ${at} <= ?${ofKind}),`
          : spec.pruneOnReserve === 'key'
            ? `pruned AS (DELETE FROM ${table} WHERE ${key} = ?${ofKind} AND ${at} <= ?),`
            : ''
      }
        times AS (SELECT ${at} AS at FROM ${table} WHERE ${key} = ?${ofKind} AND ${at} > ?),
        added AS (${
          kind === undefined
            ? `INSERT INTO ${table} (${key}, ${at}) SELECT CAST(? AS text), CAST(? AS bigint)`
            : `INSERT INTO ${table} (${key}, kind, ${at}) SELECT CAST(? AS text), '${kind}', CAST(? AS bigint)`
        } WHERE (SELECT count(*) FROM times) < ?)
        SELECT at FROM times ORDER BY at`,
    };
  }

  /** The parameters of the `reserve` text, in its order. */
  private reserveParams(key: string, at: number, since: number, max: number): SqlValue[] {
    const prune: SqlValue[] =
      this.spec.pruneOnReserve === 'all' ? [since] : this.spec.pruneOnReserve === 'key' ? [key, since] : [];
    return [...prune, key, since, key, at, max];
  }

  private async times(sql: Sql, key: string, since: number): Promise<number[]> {
    const rows = await sql.all<{ at: number }>(this.text.since, [key, since]);
    return rows.map((row) => row.at);
  }

  since(key: string, since: number): Promise<number[]> {
    return this.times(this.sql, key, since);
  }

  reserve(key: string, at: number, since: number, max: number): Promise<number[]> {
    const { pruneOnReserve } = this.spec;
    // One write transaction: the check and the record are one step for every process and instance.
    return this.sql.transaction(async (tx) => {
      if (tx.dialect === 'postgres') {
        const rows = await tx.all<{ at: number }>(this.text.reserve, this.reserveParams(key, at, since, max));
        return rows.map((row) => row.at);
      }
      /* v8 ignore start -- @preserve SQLite's path: the sqlite project runs it; the postgres coverage guard skips it. */
      if (pruneOnReserve === 'all') await tx.run(this.text.prune, [since]);
      const times = await this.times(tx, key, since);
      if (times.length >= max) return times;
      if (pruneOnReserve === 'key') await tx.run(this.text.pruneKey, [key, since]);
      await tx.run(this.text.insert, [key, at]);
      return times;
      /* v8 ignore stop -- @preserve */
    });
  }

  async remove(key: string, at: number): Promise<void> {
    await this.sql.run(this.text.remove, [key, at]);
  }

  async clear(key: string): Promise<void> {
    // In a change's transaction it rides with the next statement (nobody reads its count).
    await writeLater(this.sql, this.text.clear, [key]);
  }

  async prune(before: number): Promise<number> {
    return (await this.sql.run(this.text.prune, [before])).changes;
  }
}
