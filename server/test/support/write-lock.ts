/**
 * Another process holding the app's database write lock, for the tests of a locked database (operations.test.ts,
 * sqlite/lock-wait.test.ts): SQLite's file lock taken by a real second Node process, or on PostgreSQL every table
 * locked against writes and the instances' write transaction lock.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { AppConfig } from '../../src/config/index.js';
import { DB_FILE_NAME } from '../../src/db/connection.js';
import { WRITE_LOCK_KEY } from '../../src/db/postgres-write-gate.js';

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));

export interface HeldLock {
  /** Lets go (if it has not on its own) and resolves once the lock is free. */
  release(): Promise<void>;
}

/**
 * Another process holding the database's write lock until it is told to let go, or for `holdMs` on its own:
 * SQLite's file lock (BEGIN IMMEDIATE), or on PostgreSQL every table locked against writes (EXCLUSIVE: reads go on,
 * as in SQLite's WAL) and the instances' write transaction lock.
 */
export async function holdWriteLock(config: AppConfig, holdMs?: number): Promise<HeldLock> {
  const { database } = config;
  if (database.kind === 'postgres') return holdPostgresWriteLock(database.url, holdMs);
  return holdSqliteWriteLock(path.join(database.dataDir, DB_FILE_NAME), holdMs);
}

/** A second Node process holding `file`'s write lock (BEGIN IMMEDIATE) until released, or for `holdMs`. */
export async function holdSqliteWriteLock(file: string, holdMs?: number): Promise<HeldLock> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    const release = () => { db.exec('COMMIT'); db.close(); process.exit(0); };
    process.send('locked');
    process.on('message', release);
    if (process.argv[2]) setTimeout(release, Number(process.argv[2]));
  `;
  const child = spawn(
    process.execPath,
    ['-e', script, file, ...(holdMs === undefined ? [] : [String(holdMs)])],
    {
      cwd: SERVER_DIR,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const [message] = (await once(child, 'message')) as [string];
  if (message !== 'locked') throw new Error(`lock holder said ${message}`);
  const exited = once(child, 'exit');
  return {
    async release() {
      // It may have let go on its own already.
      if (child.connected) child.send('release', () => undefined);
      await exited;
    },
  };
}

async function holdPostgresWriteLock(url: string, holdMs?: number): Promise<HeldLock> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('BEGIN');
  await client.query(`SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`);
  const { rows } = await client.query<{ name: string }>(
    'SELECT quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = current_schema()',
  );
  await client.query(`LOCK TABLE ${rows.map((row) => row.name).join(', ')} IN EXCLUSIVE MODE`);
  let released: Promise<void> | undefined;
  const release = () => (released ??= client.query('COMMIT').then(() => client.end()));
  const timer = holdMs === undefined ? undefined : setTimeout(() => void release(), holdMs);
  return {
    async release() {
      clearTimeout(timer);
      await release();
    },
  };
}
