import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  errors as joseErrors,
  importJWK,
  jwtVerify,
  SignJWT,
  type JWK,
} from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from '../src/config/env.js';
import { SecretBox } from '../src/crypto/secret-box.js';
import { openPostgres } from '../src/db/postgres.js';
import type { Database } from '../src/db/sql.js';
import { openSqlite } from '../src/db/sqlite.js';
import {
  generateSigningKey,
  LEGACY_COOKIE_KEYS_FILE,
  LEGACY_SIGNING_KEY_FILE,
} from '../src/keys/material.js';
import { KeyRing } from '../src/keys/ring.js';
import { SignInKeys } from '../src/oidc/interactions/secrets.js';
import { KeyRingStore } from '../src/storage/key-ring.js';
import { KEY_LEAD_MS, ringTimeline, type RingTimeline } from '../src/keys/timeline.js';
import { createTestDatabase, isPostgresProject } from './support/postgres.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const T0 = Date.UTC(2026, 0, 1);
/** KEY_RING_ENCRYPTION_KEY's box: one key for every "instance" of a test, as a deployment shares one. */
const RING_BOX = new SecretBox(randomBytes(32));

/** The provider's lifetimes: ID tokens 1 h (the longest-lived JWT it signs), sessions 14 days. */
const timeline = (rotationDays = 90): RingTimeline =>
  ringTimeline({ rotationDays, longestTokenTtlSeconds: 3600, sessionTtlSeconds: 14 * 24 * 3600 });

/** One database that several "instances" open, each with a connection (pool) of its own. */
interface SharedDatabase {
  /** A new connection to the database: one instance's. */
  connect(): Promise<Database>;
  /** SQLite only: the data folder (where an older install kept its key files). */
  dataDir?: string;
}

/** Everything a test opened, closed after it (last opened, first closed). */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function sqliteDatabase(): Promise<SharedDatabase> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'portal-key-ring-'));
  cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  return Promise.resolve({
    dataDir,
    connect() {
      const db = openSqlite(dataDir);
      cleanups.push(() => db.close());
      return Promise.resolve(db);
    },
  });
}

/** postgres project: a fresh migrated database on the run's PostgreSQL for each test. */
async function postgresDatabase(): Promise<SharedDatabase> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  return {
    async connect() {
      const db = await openPostgres({
        url: database.url,
        poolMax: 4,
        connectTimeoutMs: 5000,
        statementTimeoutMs: 5000,
      });
      cleanups.push(() => db.close());
      return db;
    },
  };
}

/** The storage of this vitest project (vitest.config.ts runs the suite once per storage). */
const backends: [string, () => Promise<SharedDatabase>][] = isPostgresProject()
  ? [['PostgreSQL', postgresDatabase]]
  : [['SQLite', sqliteDatabase]];

/** A fake clock shared by the instances. */
function clock(start = T0) {
  let time = start;
  return {
    now: () => time,
    set(at: number) {
      time = at;
    },
  };
}

async function openRing(
  db: Database,
  options: { now: () => number; timeline?: RingTimeline; legacyDir?: string },
): Promise<KeyRing> {
  const ring = await KeyRing.open({
    store: new KeyRingStore(db, RING_BOX),
    timeline: options.timeline ?? timeline(),
    now: options.now,
    ...(options.legacyDir ? { legacyDir: options.legacyDir } : {}),
  });
  cleanups.push(() => ring.close());
  return ring;
}

const rowsOf = (db: Database) =>
  db.all<{ kid: string; purpose: string }>('SELECT kid, purpose FROM key_ring ORDER BY purpose, signs_from');

const kidsOf = (jwks: { keys: JWK[] }) => jwks.keys.map((key) => key.kid);

/** An ID-token-like JWT signed with the ring's current key, as the provider signs at `at`. */
async function signAt(ring: KeyRing, at: number): Promise<string> {
  const { privateJwk } = ring.signing;
  return new SignJWT({ sub: 'alice' })
    .setProtectedHeader({ alg: 'RS256', kid: privateJwk.kid })
    .setIssuedAt(Math.floor(at / 1000))
    .setExpirationTime(Math.floor(at / 1000) + 3600)
    .sign(await importJWK(privateJwk, 'RS256'));
}

/** Verifies as the API and the browser do: against the published keys, with 300 s of clock skew at most. */
async function verifiesAt(ring: KeyRing, token: string, at: number): Promise<boolean> {
  try {
    await jwtVerify(token, createLocalJWKSet(ring.signing.publicJwks), {
      algorithms: ['RS256'],
      currentDate: new Date(at),
      clockTolerance: 300,
    });
    return true;
  } catch (error) {
    if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWTExpired) return false;
    throw error;
  }
}

describe.each(backends)('key ring (%s)', (_backend, database) => {
  it('generates a signing key (kid = its RFC 7638 thumbprint) and a cookie key on first start', async () => {
    const shared = await database();
    const db = await shared.connect();
    const ring = await openRing(db, clock());

    const { privateJwk, publicJwks, providerJwks } = ring.signing;
    expect(privateJwk).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(privateJwk.d).toBeTruthy();
    expect(privateJwk.kid).toBe(
      await calculateJwkThumbprint({ kty: 'RSA', n: privateJwk.n, e: privateJwk.e }, 'sha256'),
    );
    expect(publicJwks.keys).toEqual([
      { kty: 'RSA', n: privateJwk.n, e: privateJwk.e, kid: privateJwk.kid, alg: 'RS256', use: 'sig' },
    ]);
    expect(providerJwks.keys).toEqual([privateJwk]);
    expect(ring.cookieKeys).toHaveLength(1);
    expect(Buffer.from(ring.cookieKeys[0] ?? '', 'base64url')).toHaveLength(32);
    expect(await rowsOf(db)).toHaveLength(2);

    // No key file is written: the keys live in the database only.
    if (shared.dataDir) {
      expect(readdirSync(shared.dataDir).filter((file) => file.endsWith('.json'))).toEqual([]);
    }

    // A restart (another connection, a later time within the period) loads the same keys.
    const again = await openRing(await shared.connect(), clock(T0 + 10 * DAY));
    expect(again.signing.privateJwk.kid).toBe(privateJwk.kid);
    expect(again.cookieKeys).toEqual(ring.cookieKeys);
  });

  it('instances started together agree on one signing key and one cookie key', async () => {
    const shared = await database();
    const time = clock();
    const connections = await Promise.all(Array.from({ length: 4 }, () => shared.connect()));
    const rings = await Promise.all(connections.map((db) => openRing(db, time)));
    const kids = new Set(rings.map((ring) => ring.signing.privateJwk.kid));
    const cookies = new Set(rings.map((ring) => ring.cookieKeys.join()));
    expect(kids.size).toBe(1);
    expect(cookies.size).toBe(1);
    expect(await rowsOf(await shared.connect())).toHaveLength(2);
  });

  it('rotates: the next key is published a lead time before it signs, the old one verifies until its tokens expired', async () => {
    const shared = await database();
    const time = clock();
    const a = await openRing(await shared.connect(), time);
    const b = await openRing(await shared.connect(), time);
    const changes: string[] = [];
    b.onChange((ring) => changes.push(ring.signing.privateJwk.kid));
    const first = a.signing.privateJwk.kid;
    const firstCookie = a.cookieKeys[0];

    // 90-day period, 7-day lead: nothing happens before day 83.
    time.set(T0 + 83 * DAY - 1);
    expect(await a.refresh()).toBe(false);
    expect(kidsOf(a.signing.publicJwks)).toEqual([first]);

    // Day 83: whichever instance looks first adds the next key; it is published and accepted, not yet signing.
    time.set(T0 + 83 * DAY);
    const [changedA, changedB] = await Promise.all([a.refresh(), b.refresh()]);
    expect(changedA && changedB).toBe(true);
    const db = await shared.connect();
    expect((await rowsOf(db)).map((row) => row.purpose)).toEqual(['cookie', 'cookie', 'signing', 'signing']);
    const next = kidsOf(a.signing.publicJwks)[1];
    expect(next).toBeDefined();
    expect(next).not.toBe(first);
    for (const ring of [a, b]) {
      expect(ring.signing.privateJwk.kid).toBe(first);
      expect(kidsOf(ring.signing.publicJwks)).toEqual([first, next]);
      // The provider gets both; only the current one may sign (oidc-provider skips keys without 'sign').
      expect(ring.signing.providerJwks.keys.map((key) => [key.kid, key.key_ops])).toEqual([
        [first, undefined],
        [next, ['verify']],
      ]);
      expect(ring.cookieKeys[0]).toBe(firstCookie);
      expect(ring.cookieKeys).toHaveLength(2);
    }
    expect(changes).toEqual([first]);

    // A token the old key signs just before the switch.
    time.set(T0 + 90 * DAY - 1000);
    await a.refresh();
    const oldToken = await signAt(a, time.now());

    // Day 90: the next key signs everywhere; the old one is still published.
    time.set(T0 + 90 * DAY);
    await Promise.all([a.refresh(), b.refresh()]);
    expect(a.signing.privateJwk.kid).toBe(next);
    expect(b.signing.privateJwk.kid).toBe(next);
    expect(kidsOf(b.signing.publicJwks)).toEqual([next, first]);
    expect(b.cookieKeys[1]).toBe(firstCookie);
    expect(b.cookieKeys[0]).not.toBe(firstCookie);
    expect(changes).toEqual([first, next]);
    const newToken = await signAt(a, time.now());
    expect(await verifiesAt(b, newToken, time.now())).toBe(true);

    // The old key's last token expires at day 90 + 1 h (+ 300 s of skew): verified until then, on either instance.
    const retired = T0 + 90 * DAY + 3600_000 + 5 * MINUTE + MINUTE;
    time.set(retired - 1);
    await b.refresh();
    expect(await verifiesAt(b, oldToken, T0 + 90 * DAY + 3600_000 + 5 * MINUTE - 2000)).toBe(true);
    expect(kidsOf(b.signing.publicJwks)).toEqual([next, first]);

    // Then it is retired: gone from the JWKS (and from the database), its tokens refused.
    time.set(retired);
    await b.refresh();
    expect(kidsOf(b.signing.publicJwks)).toEqual([next]);
    expect(await verifiesAt(b, oldToken, retired)).toBe(false);
    expect((await rowsOf(db)).filter((row) => row.purpose === 'signing').map((row) => row.kid)).toEqual([
      next,
    ]);
    expect(await verifiesAt(b, newToken, T0 + 90 * DAY + 30 * MINUTE)).toBe(true);

    // The old cookie key verifies for a session's lifetime after its last signature.
    time.set(T0 + 104 * DAY + 6 * MINUTE - 1);
    await b.refresh();
    expect(b.cookieKeys).toContain(firstCookie);
    time.set(T0 + 104 * DAY + 6 * MINUTE);
    await b.refresh();
    expect(b.cookieKeys).not.toContain(firstCookie);
    expect(b.cookieKeys).toHaveLength(1);
  });

  it("the sign-in pages' HMAC keys follow the ring's cookie keys", async () => {
    const shared = await database();
    const time = clock();
    const ring = await openRing(await shared.connect(), time);
    const keys = new SignInKeys(() => ring.cookieKeys);
    const before = keys.sign('csrf', 'interaction:1');

    time.set(T0 + 83 * DAY);
    await ring.refresh();
    expect(keys.sign('csrf', 'interaction:1')).toBe(before);
    time.set(T0 + 90 * DAY);
    await ring.refresh();
    // The next cookie key signs; what the previous one signed still verifies.
    expect(ring.cookieKeys).toHaveLength(2);
    expect(keys.sign('csrf', 'interaction:1')).not.toBe(before);
    expect(keys.verify('csrf', 'interaction:1', before)).toBe(true);

    time.set(T0 + 200 * DAY);
    await ring.refresh();
    expect(keys.verify('csrf', 'interaction:1', before)).toBe(false);
  });

  it('every instance switches to the next key at its start, without waiting for its next refresh', async () => {
    const shared = await database();
    const db = await shared.connect();
    // Real time, moved ahead on demand: the switch is a timer of the ring.
    let ahead = 0;
    const now = () => Date.now() + ahead;
    const ring = await openRing(db, { now });
    const first = ring.signing.privateJwk.kid;
    ahead = 83 * DAY;
    await ring.refresh();
    const next = await db.get<{ kid: string; signs_from: number }>(
      "SELECT kid, signs_from FROM key_ring WHERE purpose = 'signing' AND kid <> ?",
      [first],
    );
    if (!next) throw new Error('no next key');

    // 200 ms before the next key starts: the last refresh before it.
    ahead = next.signs_from - 200 - Date.now();
    const switched = new Promise<string>((resolve) =>
      ring.onChange((changed) => resolve(changed.signing.privateJwk.kid)),
    );
    await ring.refresh();
    expect(ring.signing.privateJwk.kid).toBe(first);
    expect(await switched).toBe(next.kid);
    expect(now()).toBeGreaterThanOrEqual(next.signs_from);
  });

  it('after a long pause the next key still gets its whole lead before it signs', async () => {
    const shared = await database();
    const time = clock();
    const ring = await openRing(await shared.connect(), time);
    const first = ring.signing.privateJwk.kid;
    time.set(T0 + 400 * DAY);
    await ring.refresh();
    expect(ring.signing.privateJwk.kid).toBe(first);
    expect(ring.signing.publicJwks.keys).toHaveLength(2);
    time.set(T0 + 400 * DAY + KEY_LEAD_MS - 1);
    await ring.refresh();
    expect(ring.signing.privateJwk.kid).toBe(first);
    time.set(T0 + 400 * DAY + KEY_LEAD_MS);
    await ring.refresh();
    expect(ring.signing.privateJwk.kid).not.toBe(first);
    // One rotation, not one per missed period.
    expect(ring.signing.publicJwks.keys).toHaveLength(2);
  });

  it('KEY_ROTATION_DAYS=0 never rotates', async () => {
    const shared = await database();
    const time = clock();
    const ring = await openRing(await shared.connect(), { ...time, timeline: timeline(0) });
    const first = ring.signing.privateJwk.kid;
    time.set(T0 + 3650 * DAY);
    expect(await ring.refresh()).toBe(false);
    expect(kidsOf(ring.signing.publicJwks)).toEqual([first]);
  });

  it('a failed refresh keeps the keys loaded', async () => {
    const shared = await database();
    const db = await shared.connect();
    const ring = await openRing(db, clock());
    const kid = ring.signing.privateJwk.kid;
    await db.close();
    await expect(ring.refresh()).rejects.toThrow();
    expect(ring.signing.privateJwk.kid).toBe(kid);
  });
});

// An upgrade from the DATA_DIR key files exists on SQLite only (a PostgreSQL ring always starts by generating).
if (!isPostgresProject()) {
  describe('key ring upgrade (SQLite)', () => {
    it('imports the key files of an older install, so the kid and the cookies stay valid', async () => {
      const shared = await sqliteDatabase();
      const dataDir = shared.dataDir ?? '';
      const legacy = await generateSigningKey();
      writeFileSync(path.join(dataDir, LEGACY_SIGNING_KEY_FILE), legacy.material);
      writeFileSync(path.join(dataDir, LEGACY_COOKIE_KEYS_FILE), JSON.stringify(['newest', 'older']));
      const time = clock();
      const ring = await openRing(await shared.connect(), { ...time, legacyDir: dataDir });

      expect(ring.signing.privateJwk.kid).toBe(legacy.kid);
      expect(ring.signing.privateJwk.d).toBe((JSON.parse(legacy.material) as JWK).d);
      expect(ring.cookieKeys).toEqual(['newest', 'older']);

      // The file's older cookie key verifies for a session's lifetime (14 days and the margin), then goes.
      time.set(T0 + 14 * DAY);
      await ring.refresh();
      expect(ring.cookieKeys).toEqual(['newest', 'older']);
      time.set(T0 + 14 * DAY + 6 * MINUTE);
      await ring.refresh();
      expect(ring.cookieKeys).toEqual(['newest']);

      // Once the ring has keys, the files are not read again.
      writeFileSync(path.join(dataDir, LEGACY_COOKIE_KEYS_FILE), JSON.stringify(['another']));
      const later = await openRing(await shared.connect(), { ...time, legacyDir: dataDir });
      expect(later.cookieKeys).toEqual(['newest']);
      expect(later.signing.privateJwk.kid).toBe(legacy.kid);
    });
  });
}

describe('KEY_ROTATION_DAYS', () => {
  it('is 90 unless set, 0 turns rotation off, and a period shorter than twice the lead is refused by name', () => {
    expect(parseEnv({}).KEY_ROTATION_DAYS).toBe(90);
    expect(parseEnv({ KEY_ROTATION_DAYS: '0' }).KEY_ROTATION_DAYS).toBe(0);
    expect(parseEnv({ KEY_ROTATION_DAYS: '14' }).KEY_ROTATION_DAYS).toBe(14);
    for (const value of ['13', '1', '-5', '3651', '30.5', 'monthly']) {
      expect(() => parseEnv({ KEY_ROTATION_DAYS: value }), value).toThrow(ConfigError);
      expect(() => parseEnv({ KEY_ROTATION_DAYS: value }), value).toThrow(/KEY_ROTATION_DAYS=/);
    }
  });
});
