/**
 * Per-key request counts in fixed windows (table request_windows): the interface and its SQL. The limits that count
 * into them: throttles/request-windows.ts.
 */
import type { Sql } from '../db/sql.js';

/** The requests of one key in its current window. */
export interface WindowCount {
  /** Requests counted in the window, the one just counted included. */
  count: number;
  /** When the window ends (ms since the epoch). */
  endsAt: number;
}

/**
 * Per-key request counts in fixed windows, in storage (table request_windows), so every instance on the database
 * counts into the same window: the per-address limits of the provider's edge and of the sign-in form.
 */
export interface RequestWindows {
  /**
   * Counts one request of `key`. A key's window runs `windowMs` from its first request; the first request after it
   * ended starts the next one. One statement, atomic on both engines: a parallel burst counts exactly.
   */
  hit(key: string, windowMs: number, now: number): Promise<WindowCount>;
  /** Deletes the windows that ended at or before `now` (of every key); returns how many. */
  prune(now: number): Promise<number>;
}

/**
 * Insert the key's first window, or count into its window, or start its next one: in the SET list both engines
 * read the row as it was before the statement, so both CASEs see the same old `ends_at`.
 */
const HIT = `
  INSERT INTO request_windows (key, ends_at, hits) VALUES (?, ?, 1)
  ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN request_windows.ends_at <= ? THEN 1 ELSE request_windows.hits + 1 END,
    ends_at = CASE WHEN request_windows.ends_at <= ? THEN excluded.ends_at ELSE request_windows.ends_at END
  RETURNING hits, ends_at`;

const PRUNE = 'DELETE FROM request_windows WHERE ends_at <= ?';

/** RequestWindows over `Sql` (SQLite migration 009, PostgreSQL 003). */
export class SqlRequestWindows implements RequestWindows {
  constructor(private readonly sql: Sql) {}

  async hit(key: string, windowMs: number, now: number): Promise<WindowCount> {
    const row = await this.sql.get<{ hits: number; ends_at: number }>(HIT, [key, now + windowMs, now, now]);
    // An upsert with RETURNING always returns its row.
    if (!row) throw new Error('request_windows: the upsert returned no row');
    return { count: row.hits, endsAt: row.ends_at };
  }

  async prune(now: number): Promise<number> {
    return (await this.sql.run(PRUNE, [now])).changes;
  }
}
