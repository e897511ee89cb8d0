import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrate.js';

export type Db = Database.Database;

export const DB_FILE_NAME = 'portal.sqlite';

/**
 * Opens (and migrates) the portal's SQLite file in `dataDir`. The directory CLI opens the same file while the
 * server runs: WAL lets one writer and many readers share it, and busy_timeout makes a concurrent writer wait
 * instead of failing.
 */
export function openDatabase(dataDir: string): Db {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, DB_FILE_NAME));
  db.pragma('journal_mode = WAL');
  // FULL: a commit is on disk before better-sqlite3 returns, so no acknowledged write is lost on power failure.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  try {
    migrate(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
