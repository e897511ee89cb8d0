/**
 * The per-call check's cache (src/auth/session-cache.ts) on its own, with a clock of the test's: the bound (an
 * entry never outlives SESSION_CACHE_MS from its read's start), invalidation by tag, and the race where a read that
 * started before an invalidation would put the value it read (now stale) back after it. Also: the setting's
 * validation, and that every method of the watched stores is classified (auth/session-change-writes.ts).
 */
import { describe, expect, it } from 'vitest';
import { SessionCache } from '../src/auth/session-cache.js';
import { UNWATCHED_METHODS, WATCHED_WRITES } from '../src/auth/session-change-writes.js';
import { accountTag, grantTag, sessionChanges, tokenTag } from '../src/auth/session-changes.js';
import { ConfigError, parseEnv } from '../src/config/env.js';
import { payloadsOf } from '../src/db/postgres-notifications.js';
import type { Sql } from '../src/db/sql.js';
import { SqlOrgSessionStore } from '../src/storage/org-sessions.js';
import { SqlProviderStore } from '../src/storage/provider.js';
import { tokenNotBeforeStore } from '../src/storage/token-not-before.js';
import { SqlUserStore } from '../src/storage/users.js';

/** A clock the test moves. */
function testClock() {
  let at = 1_000;
  return { now: () => at, advance: (ms: number) => (at += ms) };
}

/** A read the test finishes when it wants (the database answering late). */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

const tags = () => [accountTag('u1'), tokenTag('jti-1')];
const keepAlive = (value: string) => value !== 'dead';

describe('SessionCache', () => {
  it('answers from memory within the bound, and reads again once it has passed', async () => {
    const clock = testClock();
    const cache = new SessionCache<string>({ ttlMs: 1000, now: clock.now });
    let reads = 0;
    const read = async () => `read ${++reads}`;
    expect(await cache.get('k', tags, read, keepAlive)).toBe('read 1');
    clock.advance(999);
    expect(await cache.get('k', tags, read, keepAlive)).toBe('read 1');
    clock.advance(1);
    expect(await cache.get('k', tags, read, keepAlive)).toBe('read 2');
  });

  it('counts the bound from the start of the read: a slow read is kept only for what is left of it', async () => {
    const clock = testClock();
    const cache = new SessionCache<string>({ ttlMs: 1000, now: clock.now });
    const slow = deferred<string>();
    const first = cache.get('k', tags, () => slow.promise, keepAlive);
    clock.advance(600);
    slow.resolve('slow');
    expect(await first).toBe('slow');
    clock.advance(400);
    expect(await cache.get('k', tags, async () => 'fresh', keepAlive)).toBe('fresh');
    // Slower than the bound: not kept at all.
    const slower = deferred<string>();
    const second = cache.get('k2', tags, () => slower.promise, keepAlive);
    clock.advance(1000);
    slower.resolve('too old');
    await second;
    expect(await cache.get('k2', tags, async () => 'again', keepAlive)).toBe('again');
  });

  it('drops the entries of an invalidated tag at once, and only those', async () => {
    const clock = testClock();
    const cache = new SessionCache<string>({ ttlMs: 1000, now: clock.now });
    await cache.get(
      'a',
      () => [accountTag('u1'), grantTag('g1')],
      async () => 'a1',
      keepAlive,
    );
    await cache.get(
      'b',
      () => [accountTag('u2'), grantTag('g2')],
      async () => 'b1',
      keepAlive,
    );
    cache.invalidate([grantTag('g1')]);
    expect(
      await cache.get(
        'a',
        () => [accountTag('u1'), grantTag('g1')],
        async () => 'a2',
        keepAlive,
      ),
    ).toBe('a2');
    expect(
      await cache.get(
        'b',
        () => [accountTag('u2'), grantTag('g2')],
        async () => 'b2',
        keepAlive,
      ),
    ).toBe('b1');
  });

  it('a read that started before an invalidation does not put its (stale) answer back after it', async () => {
    const clock = testClock();
    const cache = new SessionCache<string>({ ttlMs: 1000, now: clock.now });
    const before = deferred<string>();
    // The read starts: the session is alive in the database at this moment…
    const racing = cache.get('k', tags, () => before.promise, keepAlive);
    // …the logout commits and is published while the read is under way…
    cache.invalidate([accountTag('u1')]);
    // …a call arriving now does not join that read, it reads for itself (and sees the session ended).
    expect(await cache.get('k', tags, async () => 'dead', keepAlive)).toBe('dead');
    // The old read answers last, with what it saw before the logout.
    before.resolve('alive');
    expect(await racing).toBe('alive');
    // It was not stored: the next call reads again.
    let reads = 0;
    expect(await cache.get('k', tags, async () => `read ${++reads}`, keepAlive)).toBe('read 1');
  });

  it('the race holds after the invalidation record is forgotten: a read older than the bound is not kept', async () => {
    const clock = testClock();
    const cache = new SessionCache<string>({ ttlMs: 100, now: clock.now });
    const before = deferred<string>();
    const racing = cache.get('k', tags, () => before.promise, keepAlive);
    cache.invalidate([accountTag('u1')]);
    clock.advance(150);
    // Another invalidation sweeps the first one's record away.
    cache.invalidate([accountTag('someone else')]);
    before.resolve('alive');
    await racing;
    expect(await cache.get('k', tags, async () => 'read again', keepAlive)).toBe('read again');
  });

  it('clear() drops everything and spoils the reads under way (the notifications were lost for a while)', async () => {
    const clock = testClock();
    const cache = new SessionCache<string>({ ttlMs: 1000, now: clock.now });
    await cache.get('a', tags, async () => 'kept', keepAlive);
    const under = deferred<string>();
    const racing = cache.get('b', tags, () => under.promise, keepAlive);
    cache.clear();
    under.resolve('old');
    await racing;
    expect(await cache.get('a', tags, async () => 'a again', keepAlive)).toBe('a again');
    expect(await cache.get('b', tags, async () => 'b again', keepAlive)).toBe('b again');
  });

  it('keeps only what `keep` accepts: a refusal is read every time', async () => {
    const cache = new SessionCache<string>({ ttlMs: 1000, now: testClock().now });
    let reads = 0;
    const read = async () => (++reads, 'dead');
    await cache.get('k', tags, read, keepAlive);
    await cache.get('k', tags, read, keepAlive);
    expect(reads).toBe(2);
  });

  it('calls that arrive while a read runs share it: one read per token, not one per call', async () => {
    const cache = new SessionCache<string>({ ttlMs: 1000, now: testClock().now });
    const one = deferred<string>();
    let reads = 0;
    const read = () => (++reads, one.promise);
    const calls = Array.from({ length: 20 }, () => cache.get('k', tags, read, keepAlive));
    one.resolve('alive');
    expect(await Promise.all(calls)).toEqual(Array(20).fill('alive'));
    expect(reads).toBe(1);
  });

  it('with ttlMs 0 keeps nothing: every call reads, as without a cache', async () => {
    const cache = new SessionCache<string>({ ttlMs: 0, now: testClock().now });
    let reads = 0;
    const read = async () => `read ${++reads}`;
    await Promise.all([cache.get('k', tags, read, keepAlive), cache.get('k', tags, read, keepAlive)]);
    await cache.get('k', tags, read, keepAlive);
    expect(reads).toBe(3);
    expect(cache.size).toBe(0);
  });

  it('keeps at most maxEntries, dropping the oldest', async () => {
    const cache = new SessionCache<string>({ ttlMs: 1000, now: testClock().now, maxEntries: 3 });
    for (const key of ['a', 'b', 'c', 'd']) await cache.get(key, tags, async () => key, keepAlive);
    expect(cache.size).toBe(3);
    expect(await cache.get('a', tags, async () => 'a read again', keepAlive)).toBe('a read again');
  });
});

describe('the feed of session changes', () => {
  it('SQLite: the apps of one process over one file hear each other; another file is not told', async () => {
    const heard: string[][] = [];
    const a = sessionChanges('/data/one');
    const b = sessionChanges('/data/one');
    const other = sessionChanges('/data/two');
    const stop = b.listen((tags) => heard.push([...tags]));
    const stopOther = other.listen(() => heard.push(['wrong file']));
    await a.publish([accountTag('u1')]);
    expect(heard).toEqual([[accountTag('u1')]]);
    stop();
    stopOther();
  });

  it('hands what it publishes to the relay (the other instances), after its own listeners', async () => {
    const order: string[] = [];
    const changes = sessionChanges();
    changes.listen(() => order.push('local'));
    changes.relayTo(async () => {
      order.push('relay');
    });
    await changes.publish([tokenTag('j')]);
    await changes.publish([]);
    expect(order).toEqual(['local', 'relay']);
  });
});

describe('the notifications between instances', () => {
  it('carry many tags in payloads that fit PostgreSQL (8000 bytes each)', () => {
    const parts = Array.from({ length: 500 }, (_, i) => accountTag(`user-${i}-${'x'.repeat(40)}`));
    const payloads = payloadsOf(parts);
    expect(payloads.length).toBeGreaterThan(1);
    for (const payload of payloads) expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(8000);
    expect(payloads.join(' ').split(' ')).toEqual(parts);
  });
});

describe('SESSION_CACHE_MS', () => {
  const base = { DATA_DIR: '/tmp/unused-data-dir' };

  it('defaults to 1000 ms; 0 turns the cache off', () => {
    expect(parseEnv(base).SESSION_CACHE_MS).toBe(1000);
    expect(parseEnv({ ...base, SESSION_CACHE_MS: '0' }).SESSION_CACHE_MS).toBe(0);
  });

  it.each(['abc', '-1', '1.5', '60001'])('refuses %s, naming the setting', (value) => {
    expect(() => parseEnv({ ...base, SESSION_CACHE_MS: value })).toThrow(ConfigError);
    expect(() => parseEnv({ ...base, SESSION_CACHE_MS: value })).toThrow(/SESSION_CACHE_MS/);
  });
});

describe('the watched stores', () => {
  const sql = { dialect: 'sqlite' } as Sql;
  const methodsOf = (store: object) => {
    const prototype = Object.getPrototypeOf(store) as object;
    const isClass = prototype !== Object.prototype;
    // A class's methods are on its prototype (its own function fields are private callbacks); an object's, its own.
    const own = isClass
      ? []
      : Object.keys(store).filter((key) => typeof (store as Record<string, unknown>)[key] === 'function');
    const classMethods = isClass ? Object.getOwnPropertyNames(prototype) : [];
    const proto = classMethods.filter(
      (name) => name !== 'constructor' && typeof (store as Record<string, unknown>)[name] === 'function',
    );
    // Private helpers of a class are not part of its interface.
    const privateHelpers = new Set(['decode', 'findBy', 'sessionPayload', 'revokeOthersAndStore']);
    return [...own, ...proto].filter((name) => !privateHelpers.has(name)).sort();
  };
  const stores = {
    provider: new SqlProviderStore(sql, { records: {} as never }),
    users: new SqlUserStore(sql),
    tokenNotBefore: tokenNotBeforeStore(sql),
    orgSessions: new SqlOrgSessionStore(sql),
  };

  it.each(Object.keys(stores) as (keyof typeof stores)[])(
    'every method of %s is either reported as a session change or said not to be one',
    (name) => {
      const classified = [...WATCHED_WRITES[name], ...UNWATCHED_METHODS[name]].sort();
      expect(methodsOf(stores[name])).toEqual(classified);
    },
  );
});
