/**
 * The SQLite template: a data folder's database with every migration applied, made once per run by the global
 * setup (fixtures-global-setup.ts). A test app on SQLite starts from a copy of it rather than migrating a new file
 * (the PostgreSQL twin is the template database of support/postgres.ts). Only the migrations: no demo account, no
 * key, nothing an app writes at its first start.
 */
import { chmodSync, copyFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { DB_FILE_NAME, openDatabase } from '../../src/db/connection.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The migrated SQLite file every SQLite test app's database is copied from. */
    sqliteTemplate: string;
  }
}

/** Migrates a new database in `folder` and closes it (its WAL folded in): the template's path. */
export function writeSqliteTemplate(folder: string): string {
  openDatabase(folder).close();
  return path.join(folder, DB_FILE_NAME);
}

/**
 * Gives `dataDir` a copy of the template as its database, unless it has one (a restart, or a test that wrote its
 * own: an older schema, a legacy install). The copy is private (0600), as the server makes its file.
 */
export function copySqliteTemplate(template: string, dataDir: string): void {
  const file = path.join(dataDir, DB_FILE_NAME);
  if (existsSync(file)) return;
  copyFileSync(template, file);
  chmodSync(file, 0o600);
}
