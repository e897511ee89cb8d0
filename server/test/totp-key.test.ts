/**
 * Issue 9, row 10: with sealed authenticator secrets in the database, the server never starts on a key that
 * cannot open them (another TOTP_ENCRYPTION_KEY): it refuses, naming TOTP_ENCRYPTION_KEY, instead of leaving every
 * authenticator user unable to sign in. On both storages; the key file of DATA_DIR (SQLite only) is covered in
 * sqlite/totp-key.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/index.js';
import { keyFingerprint, TOTP_KEY_FINGERPRINT } from '../src/crypto/totp-encryption-key.js';
import { SecretBox } from '../src/crypto/secret-box.js';
import { ALICE, dataDirsPerTest, startApp, TEST_KEY_RING_KEY, type TestApp } from './helpers.js';
import { createTestDatabase, isPostgresProject } from './support/postgres.js';

const newDataDir = dataDirsPerTest();
const drops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const drop of drops.splice(0)) await drop();
});

/** Where every start of a test keeps its data: a data folder, and in the postgres project a database of its own. */
interface Place {
  dataDir: string;
  env: Record<string, string>;
}

async function newPlace(): Promise<Place> {
  if (!isPostgresProject()) return { dataDir: newDataDir(), env: {} };
  // Named by the test (not startApp's database of the folder): a refused start must leave the data as it was.
  const database = await createTestDatabase();
  drops.push(() => database.drop());
  return {
    dataDir: newDataDir(),
    env: { DATABASE_URL: database.url, KEY_RING_ENCRYPTION_KEY: TEST_KEY_RING_KEY },
  };
}

/** Starts and stops the app on `place` with `key`, handing it to `work` in between. */
async function withApp<T>(place: Place, key: string, work: (t: TestApp) => T | Promise<T>): Promise<T> {
  const t = await startApp({ ...place.env, TOTP_ENCRYPTION_KEY: key }, place.dataDir);
  try {
    return await work(t);
  } finally {
    await t.app.close();
  }
}

async function fingerprintOf(t: TestApp): Promise<string | undefined> {
  const row = await t.app.storage.sql.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [
    TOTP_KEY_FINGERPRINT,
  ]);
  return row?.value;
}

const sealedCount = async (t: TestApp) =>
  (
    await t.app.storage.sql.get<{ n: number }>(
      'SELECT count(*) AS n FROM user_factors WHERE secret_enc IS NOT NULL',
    )
  )?.n;

/** Seals an authenticator secret for Alice with `key`, as an enrolment does. */
async function sealSecretFor(t: TestApp, key: Buffer): Promise<void> {
  const alice = await t.app.directory.findByEmail(ALICE.email);
  if (!alice) throw new Error('no Alice');
  await t.app.storage.sql.run(
    `INSERT INTO user_factors (user_id, type, status, secret_enc, updated_at)
     VALUES (?, 'google-auth', 'ACTIVE', ?, ?)`,
    [
      alice.id,
      new SecretBox(key).seal('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', alice.id),
      new Date().toISOString(),
    ],
  );
}

async function refusal(place: Place, key: string): Promise<unknown> {
  try {
    await withApp(place, key, () => undefined);
  } catch (error) {
    return error;
  }
  return undefined;
}

const hexKey = () => randomBytes(32).toString('hex');

describe('the TOTP encryption key and its fingerprint', () => {
  it('stores a fingerprint of the key in meta, never the key', async () => {
    const key = randomBytes(32);
    await withApp(await newPlace(), key.toString('hex'), async (t) => {
      const fingerprint = await fingerprintOf(t);
      expect(fingerprint).toBe(keyFingerprint(key));
      expect(fingerprint).not.toContain(key.toString('hex'));
      expect(key.toString('base64url')).not.toContain(fingerprint);
    });
  });

  it('refuses to start on another TOTP_ENCRYPTION_KEY, without echoing either key', async () => {
    const place = await newPlace();
    const key = randomBytes(32);
    await withApp(place, key.toString('hex'), (t) => sealSecretFor(t, key));

    const other = hexKey();
    const error = await refusal(place, other);
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toMatch(/TOTP_ENCRYPTION_KEY/);
    expect(String(error)).not.toContain(other);
    expect(String(error)).not.toContain(key.toString('hex'));

    // The right key (in any encoding) starts, and the sealed secret is still there.
    await withApp(place, key.toString('base64'), async (t) => expect(await sealedCount(t)).toBe(1));
  });

  it('checks a database from before the fingerprint by opening a sealed secret', async () => {
    const place = await newPlace();
    const key = randomBytes(32);
    await withApp(place, key.toString('hex'), async (t) => {
      await sealSecretFor(t, key);
      await t.app.storage.sql.run('DELETE FROM meta WHERE key = ?', [TOTP_KEY_FINGERPRINT]);
    });

    const error = await refusal(place, hexKey());
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toMatch(/TOTP_ENCRYPTION_KEY/);

    // With the key that opens it, the server starts and remembers the key's fingerprint.
    await withApp(place, key.toString('hex'), async (t) => {
      expect(await sealedCount(t)).toBe(1);
      expect(await fingerprintOf(t)).toBe(keyFingerprint(key));
    });
  });

  it('lets the key change while nothing is sealed with it, and remembers the new one', async () => {
    const place = await newPlace();
    const first = await withApp(place, hexKey(), (t) => fingerprintOf(t));
    const second = randomBytes(32);
    expect(await withApp(place, second.toString('hex'), (t) => fingerprintOf(t))).toBe(
      keyFingerprint(second),
    );
    expect(first).toEqual(expect.any(String));
    expect(first).not.toBe(keyFingerprint(second));
  });
});
