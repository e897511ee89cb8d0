import type { AppConfig } from '../config/index.js';
import { openDatabase, type Db } from '../db/connection.js';
import type { Storage } from './index.js';
import { sqliteStorage } from './sqlite.js';

export interface OpenedStorage {
  storage: Storage;
  /**
   * The SQLite connection under it: the readiness probe, the start-up's one-off checks (TOTP key fingerprint,
   * demo seeding) and the serving busy timeout use it directly.
   */
  db: Db;
  close(): void;
}

/** The storage the configuration asks for. SQLite in DATA_DIR is the only backend so far. */
export function openStorage(config: Pick<AppConfig, 'DATA_DIR'>): OpenedStorage {
  const db = openDatabase(config.DATA_DIR);
  try {
    return { storage: sqliteStorage(db), db, close: () => db.close() };
  } catch (error) {
    db.close();
    throw error;
  }
}
