/**
 * The composition that picks the storage: PostgreSQL or SQLite under the same stores (storage/sql.ts), with the
 * at-rest key loaded and checked. Used by the storage plugin and the directory CLI.
 */
import type { Env } from '../../config/env.js';
import { openPostgres } from '../../db/postgres.js';
import type { Database } from '../../db/sql.js';
import { openSqlite, useServingBusyTimeout } from '../../db/sqlite.js';
import { loadAtRestSealing, type LoadedSealing } from '../../keys/at-rest.js';
import type { Storage } from '../../storage/index.js';
import { storageOver } from '../../storage/sql.js';

export interface OpenedStorage {
  storage: Storage;
  /** The database under it: the readiness probe writes through it. */
  database: Database;
  /** KEY_RING_ENCRYPTION_KEY's boxes (the key ring opens with `sealing.keyRing`), where the key came from. */
  atRest: LoadedSealing;
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
  | 'KEY_RING_ENCRYPTION_KEY'
>;

/**
 * The storage the configuration asks for: PostgreSQL when DATABASE_URL is set (migrated under an advisory lock,
 * so instances starting together do not race), otherwise SQLite in DATA_DIR. Then KEY_RING_ENCRYPTION_KEY is
 * loaded and checked (keys/at-rest.ts: a key that cannot open the sealed ring stops the start, naming it); the
 * provider's records are sealed with it.
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
    const atRest = await sealedOrClose(database, settings);
    return {
      storage: storageOver(database, atRest.sealing),
      database,
      atRest,
      serving: () => undefined,
      close: () => database.close(),
    };
  }
  const database = openSqlite(settings.DATA_DIR);
  const atRest = await sealedOrClose(database, settings);
  return {
    storage: storageOver(database, atRest.sealing),
    database,
    atRest,
    serving: () => useServingBusyTimeout(database),
    close: () => database.close(),
  };
}

/** The at-rest key, or the database closed and the refusal thrown. */
async function sealedOrClose(database: Database, settings: StorageSettings): Promise<LoadedSealing> {
  try {
    return await loadAtRestSealing(settings.KEY_RING_ENCRYPTION_KEY, settings.DATA_DIR, database);
  } catch (error) {
    await database.close();
    throw error;
  }
}
