/**
 * SQLite's migrator, the twin of migrate-postgres.ts: applies db/migrations.ts's SQLite list, recording the version
 * in PRAGMA user_version.
 */
import type Database from 'better-sqlite3';
import { sqliteMigrations, type SqliteMigration } from './migrations.js';

const versionOf = (db: Database.Database) => db.pragma('user_version', { simple: true }) as number;

/**
 * Applies the migrations the file has not seen yet, each in its own transaction. The schema version is
 * SQLite's PRAGMA user_version: migration N (1-based) brings it to N. A file newer than this code is refused
 * rather than guessed at. A file that is already current is only read: no write lock, so a CLI start never
 * waits for (or holds up) a running server.
 */
export function migrateSqlite(
  db: Database.Database,
  migrations: readonly SqliteMigration[] = sqliteMigrations,
): number {
  const current = versionOf(db);
  if (current > migrations.length) {
    throw new Error(
      `The database schema is version ${current}, newer than this server knows (${migrations.length}). ` +
        'Run a newer server or restore a backup.',
    );
  }
  if (current === migrations.length) return migrations.length;
  migrations.forEach((migration, index) => {
    const version = index + 1;
    if (version <= current) return;
    // BEGIN IMMEDIATE takes the write lock before the version is read again, so a server and the directory
    // CLI opening a new file at the same moment never both apply a migration.
    db.transaction(() => {
      if (versionOf(db) >= version) return;
      migration.up(db);
      // PRAGMA takes no bound parameters; the version is an integer we computed.
      db.pragma(`user_version = ${version}`);
    }).immediate();
  });
  return migrations.length;
}
