import { closeSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrateSqlite } from './migrate-sqlite.js';

export type Db = Database.Database;

export const DB_FILE_NAME = 'portal.sqlite';

/**
 * How long a connection waits for another process's write lock at start-up (migrations, one-off seeding) and in
 * the directory CLI: nothing is being served then, so waiting is better than failing.
 */
export const STARTUP_BUSY_TIMEOUT_MS = 5000;

/**
 * How long the server waits for another process's write lock once it serves (the directory CLI's insert, a backup):
 * long enough for a CLI insert (a few ms, one fsync) to finish; past it the write fails with SQLITE_BUSY, answered
 * 503 with Retry-After (plugins/errors.ts). The connection's busy_timeout is then 0 and the wait is asynchronous
 * retries (db/sqlite.ts): better-sqlite3 is synchronous, and its busy_timeout would block the event loop.
 */
export const SERVING_LOCK_WAIT_MS = 200;

/**
 * How long the readiness probe's write waits for the lock: /readyz answers within 50 ms even while writes queue,
 * saying "not ready" when another process has held the lock this long.
 */
export const READINESS_LOCK_WAIT_MS = 20;

export interface OpenOptions {
  /** busy_timeout of this connection (default STARTUP_BUSY_TIMEOUT_MS). */
  busyTimeoutMs?: number;
}

/**
 * Opens (and migrates) the portal's SQLite file in `dataDir`. The directory CLI opens the same file while the
 * server runs: WAL lets one writer and many readers share it, and busy_timeout makes a concurrent writer wait
 * instead of failing at once. Once the server serves, it waits by asynchronous retries instead (db/sqlite.ts).
 */
export function openDatabase(
  dataDir: string,
  { busyTimeoutMs = STARTUP_BUSY_TIMEOUT_MS }: OpenOptions = {},
): Db {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(dataDir, DB_FILE_NAME);
  createPrivateFile(file);
  const db = new Database(file);
  try {
    db.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
    db.pragma('journal_mode = WAL');
    // FULL: a commit is on disk before better-sqlite3 returns, so no acknowledged write is lost on power failure.
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    migrateSqlite(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Creates an empty file with mode 0600 unless it exists. SQLite gives its -wal and -shm files the database's mode. */
function createPrivateFile(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}
