import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/db/connection.js';
import { isStorageUnavailableError } from '../src/db/errors.js';
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
  SqliteThrottleEvents,
  WRONG_CODE_EVENTS,
} from '../src/throttles/sqlite.js';
import { describeWait, retryAfterSeconds, Throttle, tooManyRequests } from '../src/throttles/throttle.js';
import { dataDirsPerTest } from './helpers.js';

const dataDir = dataDirsPerTest();
let db: Db;
let now = 1_000_000;
afterEach(() => db.close());

function open(): Db {
  db = openDatabase(dataDir());
  now = 1_000_000;
  return db;
}

/** A user row: the password throttle's events reference users. */
function user(id: string): string {
  db.prepare(
    `INSERT INTO users (id, email, given_name, family_name, country, is_federated, password_hash, created_at, updated_at)
     VALUES (?, ?, 'A', 'B', 'GB', 0, NULL, '', '')`,
  ).run(id, `${id}@example.com`);
  return id;
}

describe('Throttle: one sliding window per key', () => {
  it('allows 10 failed sign-ins per key in 15 minutes, then waits for the oldest to age out', () => {
    open();
    const throttle = new Throttle(new SqliteThrottleEvents(db, SIGN_IN_EVENTS), SIGN_IN_LIMIT, () => now);
    for (let i = 0; i < 10; i += 1) {
      expect(throttle.reserve('email:a').kind).toBe('reserved');
      now += 1000;
    }
    expect(throttle.reserve('email:a')).toEqual({ kind: 'refused', retryAfterMs: 15 * 60_000 - 10_000 });
    expect(throttle.reserve('email:b').kind).toBe('reserved');
    now = 1_000_000 + 15 * 60_000 + 1;
    const again = throttle.reserve('email:a');
    if (again.kind !== 'reserved') throw new Error('expected a reservation');
    throttle.clear(again.reservation.key);
    expect(throttle.retryAfterMs('email:a')).toBe(0);
  });

  it('counts the reservation that reaches the limit as the one that locks', () => {
    open();
    const id = user('u1');
    const throttle = new Throttle(
      new SqliteThrottleEvents(db, PASSWORD_CHANGE_EVENTS),
      PASSWORD_CHANGE_LIMIT,
      () => now,
    );
    const locks = [];
    for (let i = 0; i < PASSWORD_CHANGE_LIMIT.max; i += 1) {
      locks.push(throttle.locks(throttle.reserveOrThrow(id, () => new Error('refused'))));
    }
    expect(locks).toEqual([false, false, false, false, true]);
    expect(throttle.lockedUntil(id)).toBe(now + PASSWORD_CHANGE_LIMIT.windowMs);
    expect(() => throttle.reserveOrThrow(id, (wait) => tooManyRequests('wait', wait))).toThrow(HttpError);
  });

  it('keeps each use apart: wrong codes and email sends share a table, not their counts', () => {
    open();
    const wrongCodes = new Throttle(
      new SqliteThrottleEvents(db, WRONG_CODE_EVENTS),
      WRONG_CODE_LIMIT,
      () => now,
    );
    const emailSends = new Throttle(
      new SqliteThrottleEvents(db, EMAIL_SEND_EVENTS),
      EMAIL_SEND_LIMIT,
      () => now,
    );
    const send = emailSends.reserve('u1');
    expect(send.kind).toBe('reserved');
    expect(emailSends.reserve('u1')).toEqual({ kind: 'refused', retryAfterMs: EMAIL_SEND_LIMIT.windowMs });
    expect(wrongCodes.retryAfterMs('u1')).toBe(0);
    // An email that was not sent gives its attempt back.
    if (send.kind === 'reserved') emailSends.undo(send.reservation);
    expect(emailSends.retryAfterMs('u1')).toBe(0);
    for (let i = 0; i < WRONG_CODE_LIMIT.max; i += 1) wrongCodes.reserve('u1');
    expect(wrongCodes.retryAfterMs('u1')).toBe(WRONG_CODE_LIMIT.windowMs);
    expect(emailSends.reserve('u1').kind).toBe('reserved');
    now += WRONG_CODE_LIMIT.windowMs;
    expect(wrongCodes.prune()).toBe(WRONG_CODE_LIMIT.max);
    expect(emailSends.prune()).toBe(1);
  });

  it('fails closed: an attempt that cannot be recorded throws the storage error, and nothing counts', () => {
    open();
    const throttle = new Throttle(new SqliteThrottleEvents(db, SIGN_IN_EVENTS), SIGN_IN_LIMIT, () => now);
    db.pragma('query_only = 1');
    let failure: unknown;
    try {
      throttle.reserve('email:a');
    } catch (error) {
      failure = error;
    } finally {
      db.pragma('query_only = 0');
    }
    expect(isStorageUnavailableError(failure)).toBe(true);
    expect(db.prepare('SELECT count(*) FROM signin_failures').pluck().get()).toBe(0);
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
