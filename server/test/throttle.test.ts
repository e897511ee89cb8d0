import { afterEach, describe, expect, it } from 'vitest';
import { isStorageUnavailableError } from '../src/db/errors.js';
import { openPostgres } from '../src/db/postgres.js';
import type { Database } from '../src/db/sql.js';
import { openSqlite } from '../src/db/sqlite.js';
import { HttpError } from '../src/http/errors.js';
import {
  EMAIL_SEND_LIMIT,
  PASSWORD_CHANGE_LIMIT,
  SIGN_IN_LIMIT,
  WRONG_CODE_LIMIT,
} from '../src/throttles/limits.js';
import {
  EMAIL_SEND_EVENTS,
  PASSWORD_CHANGE_EVENTS,
  SIGN_IN_EVENTS,
  SqlThrottleEvents,
  WRONG_CODE_EVENTS,
  type ThrottleTable,
} from '../src/storage/throttle-events.js';
import {
  describeWait,
  retryAfterSeconds,
  Throttle,
  tooManyRequests,
  type ReserveOutcome,
  type ThrottleLimit,
} from '../src/throttles/throttle.js';
import { dataDirsPerTest } from './helpers.js';
import { createTestDatabase, isPostgresProject } from './support/postgres.js';

const dataDir = dataDirsPerTest();
/** Everything a test opened, closed after it (last opened, first closed). */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
let now = 1_000_000;

/** One database of this vitest project's storage that several "instances" connect to, each on its own connection. */
async function sharedDatabase(): Promise<{ connect(options?: { poolMax?: number }): Promise<Database> }> {
  now = 1_000_000;
  if (!isPostgresProject()) {
    const dir = dataDir();
    return {
      connect() {
        const db = openSqlite(dir);
        cleanups.push(() => db.close());
        return Promise.resolve(db);
      },
    };
  }
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  return {
    async connect({ poolMax = 4 } = {}) {
      const db = await openPostgres({
        url: database.url,
        poolMax,
        connectTimeoutMs: 5000,
        statementTimeoutMs: 5000,
      });
      cleanups.push(() => db.close());
      return db;
    },
  };
}

async function open(): Promise<Database> {
  return (await sharedDatabase()).connect();
}

const throttleOver = (db: Database, table: ThrottleTable, limit: ThrottleLimit) =>
  new Throttle(new SqlThrottleEvents(db, table), limit, () => now);

/** A user row: the password throttle's events reference users. */
async function user(db: Database, id: string): Promise<string> {
  await db.run(
    `INSERT INTO users (id, email, given_name, family_name, country, is_federated, password_hash, created_at, updated_at)
     VALUES (?, ?, 'A', 'B', 'GB', 0, NULL, '', '')`,
    [id, `${id}@example.com`],
  );
  return id;
}

const countOf = async (db: Database, table: string) =>
  (await db.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))?.n;

describe('Throttle: one sliding window per key', () => {
  it('allows 10 failed sign-ins per key in 15 minutes, then waits for the oldest to age out', async () => {
    const throttle = throttleOver(await open(), SIGN_IN_EVENTS, SIGN_IN_LIMIT);
    for (let i = 0; i < 10; i += 1) {
      expect((await throttle.reserve('email:a')).kind).toBe('reserved');
      now += 1000;
    }
    expect(await throttle.reserve('email:a')).toEqual({
      kind: 'refused',
      retryAfterMs: 15 * 60_000 - 10_000,
    });
    expect((await throttle.reserve('email:b')).kind).toBe('reserved');
    now = 1_000_000 + 15 * 60_000 + 1;
    const again = await throttle.reserve('email:a');
    if (again.kind !== 'reserved') throw new Error('expected a reservation');
    await throttle.clear(again.reservation.key);
    expect(await throttle.retryAfterMs('email:a')).toBe(0);
  });

  it('counts the reservation that reaches the limit as the one that locks', async () => {
    const db = await open();
    const id = await user(db, 'u1');
    const throttle = throttleOver(db, PASSWORD_CHANGE_EVENTS, PASSWORD_CHANGE_LIMIT);
    const locks = [];
    for (let i = 0; i < PASSWORD_CHANGE_LIMIT.max; i += 1) {
      locks.push(throttle.locks(await throttle.reserveOrThrow(id, () => new Error('refused'))));
    }
    expect(locks).toEqual([false, false, false, false, true]);
    expect(await throttle.lockedUntil(id)).toBe(now + PASSWORD_CHANGE_LIMIT.windowMs);
    await expect(throttle.reserveOrThrow(id, (wait) => tooManyRequests('wait', wait))).rejects.toThrow(
      HttpError,
    );
  });

  it('keeps each use apart: wrong codes and email sends share a table, not their counts', async () => {
    const db = await open();
    const wrongCodes = throttleOver(db, WRONG_CODE_EVENTS, WRONG_CODE_LIMIT);
    const emailSends = throttleOver(db, EMAIL_SEND_EVENTS, EMAIL_SEND_LIMIT);
    const send = await emailSends.reserve('u1');
    expect(send.kind).toBe('reserved');
    expect(await emailSends.reserve('u1')).toEqual({
      kind: 'refused',
      retryAfterMs: EMAIL_SEND_LIMIT.windowMs,
    });
    expect(await wrongCodes.retryAfterMs('u1')).toBe(0);
    // An email that was not sent gives its attempt back.
    if (send.kind === 'reserved') await emailSends.undo(send.reservation);
    expect(await emailSends.retryAfterMs('u1')).toBe(0);
    for (let i = 0; i < WRONG_CODE_LIMIT.max; i += 1) await wrongCodes.reserve('u1');
    expect(await wrongCodes.retryAfterMs('u1')).toBe(WRONG_CODE_LIMIT.windowMs);
    expect((await emailSends.reserve('u1')).kind).toBe('reserved');
    now += WRONG_CODE_LIMIT.windowMs;
    expect(await wrongCodes.prune()).toBe(WRONG_CODE_LIMIT.max);
    expect(await emailSends.prune()).toBe(1);
  });

  it('admits exactly `max` of a parallel burst of one key', async () => {
    const throttle = throttleOver(await open(), SIGN_IN_EVENTS, SIGN_IN_LIMIT);
    const outcomes = await Promise.all(Array.from({ length: 30 }, () => throttle.reserve('email:burst')));
    expect(outcomes.filter((outcome) => outcome.kind === 'reserved')).toHaveLength(SIGN_IN_LIMIT.max);
    // Each admitted attempt saw the ones before it: counts 1..max, each once.
    const counts = outcomes.flatMap((outcome) =>
      outcome.kind === 'reserved' ? [outcome.reservation.count] : [],
    );
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: SIGN_IN_LIMIT.max }, (_, i) => i + 1));
  });

  it('counts across instances: a burst through two connections admits exactly `max` in all', async () => {
    const shared = await sharedDatabase();
    const connections = [await shared.connect(), await shared.connect()];
    const instances = connections.map((db) => throttleOver(db, SIGN_IN_EVENTS, SIGN_IN_LIMIT));
    const attempt = (i: number) => (instances[i % 2] as Throttle).reserve('email:spread');
    const attempts = Array.from({ length: 30 }, (_, i) => i);
    // PostgreSQL: instances are processes on one database, so the burst is parallel. SQLite serves one process
    // per file (one connection each): two connections in one process would wait on each other's write lock with
    // the event loop blocked, so there the instances take turns.
    let outcomes: ReserveOutcome[] = [];
    if (connections[0]?.dialect === 'postgres') outcomes = await Promise.all(attempts.map(attempt));
    else for (const i of attempts) outcomes.push(await attempt(i));
    expect(outcomes.filter((outcome) => outcome.kind === 'reserved')).toHaveLength(SIGN_IN_LIMIT.max);
    for (const instance of instances) expect((await instance.reserve('email:spread')).kind).toBe('refused');
  });

  it('fails closed: an attempt that cannot be recorded throws the storage error, and nothing counts', async () => {
    // One connection, made read-only for a moment: SQLite's query_only, PostgreSQL's read-only transactions (25006).
    const db = await (await sharedDatabase()).connect({ poolMax: 1 });
    const throttle = throttleOver(db, SIGN_IN_EVENTS, SIGN_IN_LIMIT);
    const readOnly = async (on: boolean) => {
      if (db.dialect === 'sqlite') await db.run(`PRAGMA query_only = ${on ? 1 : 0}`);
      else await db.run(`SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
    };
    await readOnly(true);
    let failure: unknown;
    try {
      await throttle.reserve('email:a');
    } catch (error) {
      failure = error;
    } finally {
      await readOnly(false);
    }
    expect(isStorageUnavailableError(failure)).toBe(true);
    expect(await countOf(db, 'signin_failures')).toBe(0);
  });
});

describe('the 429 helper', () => {
  it('rounds a wait up to whole seconds, at least 1, for Retry-After and the message', () => {
    expect([1, 999, 1000, 1001, 90_000].map(retryAfterSeconds)).toEqual([1, 1, 1, 2, 90]);
    const answer = tooManyRequests('Too many', 1500);
    expect(answer.statusCode).toBe(429);
    expect(answer.headers).toEqual({ 'Retry-After': '2' });
    expect([1000, 59_000, 60_001, 5 * 60_000].map(describeWait)).toEqual([
      '1 second',
      '59 seconds',
      '2 minutes',
      '5 minutes',
    ]);
  });
});
