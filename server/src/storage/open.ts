import type { Env } from '../config/env.js';
import { openPostgres } from '../db/postgres.js';
import type { Database } from '../db/sql.js';
import { openSqlite, useServingBusyTimeout } from '../db/sqlite.js';
import type { Storage } from './index.js';
import { storageOver } from './sql.js';

export interface OpenedStorage {
  storage: Storage;
  /** The database under it: the readiness probe writes through it. */
  database: Database;
  /** From the moment requests are served: a locked SQLite file fails fast instead of holding requests. */
  serving(): void;
  close(): Promise<void>;
}

type StorageSettings = Pick<
  Env,
  | 'DATA_DIR'
  | 'DATABASE_URL'
  | 'DATABASE_POOL_MAX'
  | 'DATABASE_CONNECT_TIMEOUT_MS'
  | 'DATABASE_STATEMENT_TIMEOUT_MS'
>;

/**
 * The storage the configuration asks for: PostgreSQL when DATABASE_URL is set (migrated under an advisory lock,
 * so instances starting together do not race), otherwise SQLite in DATA_DIR.
 */
export async function openStorage(
  settings: StorageSettings,
  log?: (message: string, error?: unknown) => void,
): Promise<OpenedStorage> {
  if (settings.DATABASE_URL !== undefined) {
    const database = await openPostgres({
      url: settings.DATABASE_URL,
      poolMax: settings.DATABASE_POOL_MAX,
      connectTimeoutMs: settings.DATABASE_CONNECT_TIMEOUT_MS,
      statementTimeoutMs: settings.DATABASE_STATEMENT_TIMEOUT_MS,
      ...(log ? { log } : {}),
    });
    return {
      storage: storageOver(database),
      database,
      serving: () => undefined,
      close: () => database.close(),
    };
  }
  const database = openSqlite(settings.DATA_DIR);
  return {
    storage: storageOver(database),
    database,
    serving: () => useServingBusyTimeout(database),
    close: () => database.close(),
  };
}
