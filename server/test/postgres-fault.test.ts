/**
 * The database goes away and comes back, or hangs: requests fail fast with errors the classifier calls unavailable
 * (503 with Retry-After upstream), nothing crashes, and the same Database works again once PostgreSQL is back,
 * without reopening. On a PostgreSQL server of this file's own (stopping the run's shared one would break the
 * other test files).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageUnavailableReason } from '../src/db/errors.js';
import { openPostgres } from '../src/db/postgres.js';
import type { Database } from '../src/db/sql.js';
import { startEmbeddedPostgres, withDatabase, type EmbeddedServer } from './support/postgres-server.js';

const CONNECT_TIMEOUT_MS = 500;
const STATEMENT_TIMEOUT_MS = 1000;

/** Resolves once `check` holds (polling); fails after `timeoutMs`. */
async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** How long `work` took to fail, and with what. */
async function failure(work: () => Promise<unknown>): Promise<{ ms: number; error: unknown }> {
  const started = Date.now();
  try {
    await work();
  } catch (error) {
    return { ms: Date.now() - started, error };
  }
  throw new Error('expected a failure');
}

describe('PostgreSQL going away, coming back, hanging', () => {
  let server: EmbeddedServer;
  let db: Database;
  const logged: string[] = [];

  beforeAll(async () => {
    server = await startEmbeddedPostgres({ restartable: true });
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query('CREATE DATABASE portal');
    await admin.end();
    db = await openPostgres({
      url: withDatabase(server.url, 'portal'),
      poolMax: 4,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      statementTimeoutMs: STATEMENT_TIMEOUT_MS,
      log: (message) => logged.push(message),
    });
  }, 60_000);
  afterAll(async () => {
    await db?.close();
    await server?.destroy();
  });

  it('fails fast while the server is stopped, and works again on the same Database when it is back', async () => {
    await db.transaction((tx) => tx.run("INSERT INTO meta (key, value) VALUES ('before', 'stop')"));
    // Idle connections in the pool, as a serving instance has.
    await Promise.all([db.get('SELECT 1'), db.get('SELECT 2'), db.get('SELECT 3')]);

    await server.stop();
    // The server ended the idle connections as it shut down: reported, not thrown.
    await until(() => logged.some((line) => line.includes('idle connection failed')));

    for (const attempt of [
      () => db.get('SELECT value FROM meta'),
      () => db.transaction((tx) => tx.run("INSERT INTO meta (key, value) VALUES ('during', 'stop')")),
      () => db.probeWrite(Date.now()),
    ]) {
      const { ms, error } = await failure(attempt);
      expect(ms).toBeLessThan(CONNECT_TIMEOUT_MS + 1000);
      expect(storageUnavailableReason(error)).toBe('the database cannot be reached (ECONNREFUSED)');
    }

    await server.start();
    expect(await db.all('SELECT key, value FROM meta')).toEqual([{ key: 'before', value: 'stop' }]);
    await db.transaction((tx) => tx.run("INSERT INTO meta (key, value) VALUES ('after', 'start')"));
    await db.probeWrite(Date.now());
    expect(await db.get("SELECT value FROM meta WHERE key = 'after'")).toEqual({ value: 'start' });
  });

  it('fails a transaction cut by the shutdown as unavailable, and does not reuse its connection', async () => {
    const { error } = await failure(() =>
      db.transaction(async (tx) => {
        await tx.run("INSERT INTO meta (key, value) VALUES ('cut', 'short')");
        await server.stop();
        await tx.run("INSERT INTO meta (key, value) VALUES ('cut2', 'short')");
      }),
    );
    expect(storageUnavailableReason(error)).toBeDefined();
    await server.start();
    // Rolled back with the connection; every statement now runs on working connections.
    for (let i = 0; i < 8; i += 1) {
      expect(await db.get("SELECT count(*) AS n FROM meta WHERE key LIKE 'cut%'")).toEqual({ n: 0 });
    }
  });

  it('fails fast when the server hangs (no answer at all), and works again when it resumes', async () => {
    await Promise.all([db.get('SELECT 1'), db.get('SELECT 2')]);
    // Freeze the server and every session of the test database: connections are accepted by the kernel but
    // nothing answers, as with a hung host.
    const postmaster = Number(
      readFileSync(path.join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const sessions = (
      await admin.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = 'portal'")
    ).rows.map(({ pid }) => pid);
    await admin.end();
    const frozen = [postmaster, ...sessions];
    for (const pid of frozen) process.kill(pid, 'SIGSTOP');
    try {
      for (const attempt of [() => db.get('SELECT 1'), () => db.transaction((tx) => tx.get('SELECT 1'))]) {
        const { ms, error } = await failure(attempt);
        // The client-side limit: the statement timeout plus a margin (the server cannot enforce its own).
        expect(ms).toBeLessThan(STATEMENT_TIMEOUT_MS + 1000 + 1000);
        expect(storageUnavailableReason(error)).toMatch(
          /did not answer in time|no database connection was free/,
        );
      }
    } finally {
      for (const pid of frozen) process.kill(pid, 'SIGCONT');
    }
    // The timed-out connections were dropped, not reused: the next statements get fresh ones.
    for (let i = 0; i < 6; i += 1) expect(await db.get('SELECT 1 AS one')).toEqual({ one: 1 });
    await db.transaction((tx) =>
      tx.run(
        "INSERT INTO meta (key, value) VALUES ('after', 'hang') ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ),
    );
  });
});
