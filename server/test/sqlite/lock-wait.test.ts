/**
 * Issue 18, item 6: waiting for another process's SQLite write lock never blocks the event loop. A real second
 * process holds the lock while writes queue; /healthz and /readyz still answer within 50 ms, the event loop's
 * longest stall is measured (perf_hooks), the writes answer 503 with Retry-After after the wait, and succeed when
 * the lock is let go within it. At the Sql level: a transaction is begun again only while nothing is written, a
 * statement that waited never lands inside another transaction of the connection, nothing acknowledged is lost.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { rmSync } from 'node:fs';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  openDatabase,
  READINESS_LOCK_WAIT_MS,
  SERVING_LOCK_WAIT_MS,
  type Db,
} from '../../src/db/connection.js';
import { openSqlite, useServingBusyTimeout, type SqliteDatabase } from '../../src/db/sqlite.js';
import { STORAGE_UNAVAILABLE_MESSAGE } from '../../src/http/storage-unavailable.js';
import { READINESS_REUSE_MS } from '../../src/routes/web.js';
import { ALICE, startApp, subOf, tempDir, tokensFor, type TestApp } from '../helpers.js';
import { holdWriteLock } from '../support/write-lock.js';

/** Measured figures, printed at the end of the file's run for the issue note. */
const figures: string[] = [];
afterAll(() => {
  if (figures.length > 0) process.stdout.write(`\nLock-wait figures:\n  ${figures.join('\n  ')}\n`);
});

/** What the issue asks of the probes while writes wait. */
const PROBE_ANSWER_MS = 50;
const lockedReadiness = {
  error: 'The database cannot be written: another process holds its write lock (SQLITE_BUSY).',
};

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const startedAt = performance.now();
  const value = await work;
  return { value, ms: performance.now() - startedAt };
}

/**
 * The bound a probe must answer within while writes wait: 50 ms beyond what a probe takes on this machine at this
 * moment with no lock held (the slowest of three; a machine busy with other builds once made a locked probe take
 * 154 ms, the unlocked ones as long), and always well short of one write's lock wait, which a probe that queued
 * behind the writes would take.
 */
async function probeBound(
  probe: () => Promise<unknown>,
  ceiling = SERVING_LOCK_WAIT_MS * 0.9,
): Promise<number> {
  let slowest = 0;
  for (let sample = 0; sample < 3; sample += 1) slowest = Math.max(slowest, (await timed(probe())).ms);
  return Math.min(PROBE_ANSWER_MS + slowest, ceiling);
}

describe('writes queued behind another process holding the SQLite write lock', () => {
  let t: TestApp;
  let clock: { now: number };
  let token: string;
  let sub: string;
  beforeAll(async () => {
    clock = { now: Date.now() };
    t = await startApp({}, tempDir(), { now: () => clock.now });
    token = (await tokensFor(t.app, ALICE)).access_token;
    sub = subOf(token);
  });
  afterAll(async () => t.close());

  const database = () => t.app.database as SqliteDatabase;
  const updateProfile = (firstName: string) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/profile/${sub}/update`,
      headers: { authorization: `Bearer ${token}` },
      payload: { firstName },
    });

  it('4 queued writes: /healthz and /readyz answer within 50 ms, the event loop never stalls, the writes get 503', async () => {
    const bound = await probeBound(() => t.app.inject('/healthz'));
    const lock = await holdWriteLock(t.config);
    const loop = monitorEventLoopDelay({ resolution: 1 });
    try {
      loop.enable();
      const writes = ['Ann', 'Bea', 'Cat', 'Dee'].map((name) => timed(updateProfile(name)));
      // Every write has reached the database and waits for the lock.
      await vi.waitFor(() => expect(database().waitingForLock).toBe(4), { interval: 1 });

      const health = await timed(t.app.inject('/healthz'));
      clock.now += READINESS_REUSE_MS;
      const ready = await timed(t.app.inject('/readyz'));
      const answers = await Promise.all(writes);
      loop.disable();
      const stallMs = loop.max / 1e6;

      expect(health.value.statusCode).toBe(200);
      expect(health.ms).toBeLessThan(bound);
      // Not ready: its write probe waits READINESS_LOCK_WAIT_MS for the lock, not the writes' full wait.
      expect(ready.value.statusCode).toBe(503);
      expect(ready.value.headers['retry-after']).toBe('1');
      expect(ready.value.json()).toEqual(lockedReadiness);
      expect(ready.ms).toBeLessThan(bound);
      for (const { value, ms } of answers) {
        expect(value.statusCode).toBe(503);
        expect(Number(value.headers['retry-after'])).toBeGreaterThan(0);
        expect(value.json()).toEqual({ error: STORAGE_UNAVAILABLE_MESSAGE, code: 'storage_unavailable' });
        expect(ms).toBeGreaterThanOrEqual(SERVING_LOCK_WAIT_MS * 0.9);
        expect(ms).toBeLessThan(1000);
      }
      // The lock waits are timers, not a blocked thread: no stall comes near one wait (it was 200 ms per write).
      expect(stallMs).toBeLessThan(SERVING_LOCK_WAIT_MS / 2);
      figures.push(
        `4 writes queued behind the lock: /healthz ${health.ms.toFixed(1)} ms, /readyz ${ready.ms.toFixed(1)} ms, ` +
          `writes 503 after ${answers.map(({ ms }) => Math.round(ms)).join('/')} ms, ` +
          `longest event-loop stall ${stallMs.toFixed(1)} ms`,
      );
    } finally {
      loop.disable();
      await lock.release();
    }
    expect(database().waitingForLock).toBe(0);
    clock.now += READINESS_REUSE_MS;
    expect((await t.app.inject('/readyz')).json()).toEqual({ status: 'ready' });
  });

  it('a write waiting for the lock succeeds when the other process lets go within the wait', async () => {
    const lock = await holdWriteLock(t.config);
    let answer: { value: LightMyRequestResponse; ms: number };
    try {
      const write = timed(updateProfile('Alicia'));
      await vi.waitFor(() => expect(database().waitingForLock).toBe(1), { interval: 1 });
      await lock.release();
      answer = await write;
    } finally {
      await lock.release();
    }
    expect(answer.value.statusCode).toBe(200);
    expect(answer.ms).toBeLessThan(SERVING_LOCK_WAIT_MS);
    figures.push(`a write whose lock was let go while it waited: 200 after ${Math.round(answer.ms)} ms`);
    // Success bodies are JSON text holding JSON (the spec's shape).
    expect(JSON.parse(answer.value.json<string>())).toMatchObject({ firstName: 'Alicia' });
    // Stored: the acknowledged write is in the file.
    expect((await t.app.directory.findByEmail(ALICE.email))?.givenName).toBe('Alicia');
  });

  it('a flood of /readyz while the lock is held runs one probe at a time and answers each fast', async () => {
    const FLOOD = 20;
    const flooded = () => Promise.all(Array.from({ length: FLOOD }, () => t.app.inject('/readyz')));
    // Never as long as probes one after the other would take, each with its own short wait.
    const bound = await probeBound(
      () => Promise.all(Array.from({ length: FLOOD }, () => t.app.inject('/healthz'))),
      FLOOD * READINESS_LOCK_WAIT_MS,
    );
    const lock = await holdWriteLock(t.config);
    try {
      clock.now += READINESS_REUSE_MS;
      const probes = vi.spyOn(t.app.database, 'probeWrite');
      const flood = await timed(flooded());
      expect(flood.value.every((response) => response.statusCode === 503)).toBe(true);
      expect(probes).toHaveBeenCalledTimes(1);
      // Each waited for the one probe's short wait, never a write's.
      expect(flood.ms).toBeLessThan(bound);
      for (const response of flood.value) expect(response.json()).toEqual(lockedReadiness);
      probes.mockRestore();
    } finally {
      await lock.release();
    }
  });
});

describe('a transaction that waits for the lock (Sql level, a second connection holds it)', () => {
  let dir: string;
  let db: SqliteDatabase;
  let other: Db;
  beforeAll(() => {
    dir = tempDir();
    db = openSqlite(dir);
    useServingBusyTimeout(db);
    other = openDatabase(dir);
  });
  afterEach(() => {
    if (other.inTransaction) other.exec('ROLLBACK');
  });
  afterAll(async () => {
    other.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const keysSeenByOther = (prefix: string) =>
    (
      other.prepare('SELECT key FROM meta WHERE key LIKE ? ORDER BY key').all(`${prefix}%`) as {
        key: string;
      }[]
    ).map((row) => row.key);
  const insert = 'INSERT INTO meta (key, value) VALUES (?, ?)';

  it('is begun again only before its work runs: the work runs once, and every acknowledged write is there', async () => {
    other.exec('BEGIN IMMEDIATE');
    let runs = 0;
    const committed = db.transaction(async (tx) => {
      runs += 1;
      await tx.run(insert, ['a:1', 'x']);
      await tx.run(insert, ['a:2', 'x']);
      return 'done';
    });
    const single = db.run(insert, ['a:3', 'x']);
    await vi.waitFor(() => expect(db.waitingForLock).toBe(2), { interval: 1 });
    expect(runs).toBe(0);
    other.exec('COMMIT');
    expect(await committed).toBe('done');
    expect(await single).toEqual({ changes: 1 });
    expect(runs).toBe(1);
    expect(keysSeenByOther('a:')).toEqual(['a:1', 'a:2', 'a:3']);
  });

  it('a work that throws after writing is rolled back and never run again', async () => {
    let runs = 0;
    const failed = db.transaction(async (tx) => {
      runs += 1;
      await tx.run(insert, ['b:1', 'x']);
      await tx.run(insert, ['b:1', 'again']);
    });
    await expect(failed).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(runs).toBe(1);
    expect(keysSeenByOther('b:')).toEqual([]);
  });

  it('a statement that waited for the lock never runs inside a transaction begun meanwhile on its connection', async () => {
    other.exec('BEGIN IMMEDIATE');
    const waited = db.run(insert, ['c:outside', 'x']);
    await vi.waitFor(() => expect(db.waitingForLock).toBe(1), { interval: 1 });
    other.exec('COMMIT');
    // Begun at once (the lock is free) while the statement above sleeps until its next try.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const rolledBack = db.transaction(async (tx) => {
      await tx.run(insert, ['c:inside', 'x']);
      await gate;
      throw new Error('roll back');
    });
    // The waiting statement wakes for its next try while the transaction is open.
    await vi.waitFor(() => expect(db.waitingForLock).toBe(0), { interval: 1 });
    open();
    await expect(rolledBack).rejects.toThrow('roll back');
    expect(await waited).toEqual({ changes: 1 });
    expect(keysSeenByOther('c:')).toEqual(['c:outside']);
  });

  it('closing lets a statement that waits for the lock give up (503) instead of meeting a closed connection', async () => {
    const closingDir = tempDir();
    const closing = openSqlite(closingDir);
    closing.serve();
    const holder = openDatabase(closingDir);
    try {
      holder.exec('BEGIN IMMEDIATE');
      const waiting = closing.run(insert, ['e:1', 'x']);
      await vi.waitFor(() => expect(closing.waitingForLock).toBe(1), { interval: 1 });
      await closing.close();
      await expect(waiting).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
      holder.exec('COMMIT');
      expect(holder.prepare("SELECT count(*) AS n FROM meta WHERE key = 'e:1'").get()).toEqual({ n: 0 });
    } finally {
      holder.close();
      rmSync(closingDir, { recursive: true, force: true });
    }
  });

  it('gives up after the wait with the driver error, having written nothing', async () => {
    other.exec('BEGIN IMMEDIATE');
    let runs = 0;
    const startedAt = performance.now();
    const refused = db.transaction(async (tx) => {
      runs += 1;
      await tx.run(insert, ['d:1', 'x']);
    });
    await expect(refused).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    const waitedMs = performance.now() - startedAt;
    other.exec('COMMIT');
    expect(runs).toBe(0);
    expect(waitedMs).toBeGreaterThanOrEqual(SERVING_LOCK_WAIT_MS * 0.9);
    expect(keysSeenByOther('d:')).toEqual([]);
  });
});
