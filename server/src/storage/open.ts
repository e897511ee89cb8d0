import type { AppConfig } from '../config/index.js';
import type { Database } from '../db/sql.js';
import { openSqlite, useServingBusyTimeout } from '../db/sqlite.js';
import type { Storage } from './index.js';
import { storageOver } from './sql.js';

export interface OpenedStorage {
  storage: Storage;
  /** The database under it: the readiness probe writes through it. */
  database: Database;
  /** From the moment requests are served: a locked database fails fast instead of holding requests. */
  serving(): void;
  close(): Promise<void>;
}

/** The storage the configuration asks for: SQLite in DATA_DIR. */
export async function openStorage(config: Pick<AppConfig, 'DATA_DIR'>): Promise<OpenedStorage> {
  const database = openSqlite(config.DATA_DIR);
  return {
    storage: storageOver(database),
    database,
    serving: () => useServingBusyTimeout(database),
    close: () => database.close(),
  };
}
