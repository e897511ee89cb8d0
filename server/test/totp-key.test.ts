/**
 * Issue 9, row 10: with sealed authenticator secrets in the database, the server never starts on a key that
 * cannot open them (a missing key file, another TOTP_ENCRYPTION_KEY): it refuses, naming TOTP_ENCRYPTION_KEY,
 * instead of generating a new key and leaving every authenticator user unable to sign in.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config/index.js';
import { TOTP_KEY_FILE, TOTP_KEY_FINGERPRINT } from '../src/factors/encryption-key.js';
import { SecretBox } from '../src/factors/secret-box.js';
import { ALICE, dataDirsPerTest, startApp, type TestApp } from './helpers.js';

const newDataDir = dataDirsPerTest();

/** Starts and stops the app on `dataDir`, handing it to `work` in between. */
async function withApp<T>(dataDir: string, env: Record<string, string>, work: (t: TestApp) => T): Promise<T> {
  const t = await startApp(env, dataDir);
  try {
    return await work(t);
  } finally {
    await t.app.close();
  }
}

const keyFile = (dataDir: string) => path.join(dataDir, TOTP_KEY_FILE);
const fingerprintOf = (t: TestApp) =>
  (
    t.app.db.prepare('SELECT value FROM meta WHERE key = ?').get(TOTP_KEY_FINGERPRINT) as
      { value: string } | undefined
  )?.value;

/** Seals an authenticator secret for Alice with `key`, as an enrolment does. */
function sealSecretFor(t: TestApp, key: Buffer): void {
  const alice = t.app.directory.findByEmail(ALICE.email);
  if (!alice) throw new Error('no Alice');
  t.app.db
    .prepare(
      `INSERT INTO user_factors (user_id, type, status, secret_enc, updated_at)
       VALUES (?, 'google-auth', 'ACTIVE', ?, ?)`,
    )
    .run(
      alice.id,
      new SecretBox(key).seal('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', alice.id),
      new Date().toISOString(),
    );
}

async function refusal(dataDir: string, env: Record<string, string> = {}): Promise<unknown> {
  try {
    await withApp(dataDir, env, () => undefined);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the TOTP encryption key and its fingerprint', () => {
  it('stores a fingerprint of the key in meta, never the key', async () => {
    const dataDir = newDataDir();
    await withApp(dataDir, {}, (t) => {
      const key = readFileSync(keyFile(dataDir), 'utf8').trim();
      const fingerprint = fingerprintOf(t);
      expect(fingerprint).toEqual(expect.any(String));
      expect(fingerprint).not.toContain(key);
      expect(Buffer.from(key, 'hex').toString('base64url')).not.toContain(fingerprint);
    });
  });

  it('refuses to start when the key file is gone and secrets are sealed, and makes no new key', async () => {
    const dataDir = newDataDir();
    await withApp(dataDir, {}, (t) =>
      sealSecretFor(t, Buffer.from(readFileSync(keyFile(dataDir), 'utf8').trim(), 'hex')),
    );
    unlinkSync(keyFile(dataDir));

    const error = await refusal(dataDir);
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toMatch(/TOTP_ENCRYPTION_KEY/);
    expect(existsSync(keyFile(dataDir))).toBe(false);
  });

  it('refuses to start on another TOTP_ENCRYPTION_KEY, without echoing either key', async () => {
    const dataDir = newDataDir();
    const key = randomBytes(32);
    await withApp(dataDir, { TOTP_ENCRYPTION_KEY: key.toString('hex') }, (t) => sealSecretFor(t, key));

    const other = randomBytes(32).toString('hex');
    const error = await refusal(dataDir, { TOTP_ENCRYPTION_KEY: other });
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toMatch(/TOTP_ENCRYPTION_KEY/);
    expect(String(error)).not.toContain(other);
    expect(String(error)).not.toContain(key.toString('hex'));

    // The right key, from the environment or back in its file, starts.
    await withApp(dataDir, { TOTP_ENCRYPTION_KEY: key.toString('base64') }, () => undefined);
  });

  it('checks a folder from before the fingerprint by opening a sealed secret', async () => {
    const dataDir = newDataDir();
    const key = randomBytes(32);
    await withApp(dataDir, { TOTP_ENCRYPTION_KEY: key.toString('hex') }, (t) => {
      sealSecretFor(t, key);
      t.app.db.prepare('DELETE FROM meta WHERE key = ?').run(TOTP_KEY_FINGERPRINT);
    });

    const error = await refusal(dataDir, { TOTP_ENCRYPTION_KEY: randomBytes(32).toString('hex') });
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toMatch(/TOTP_ENCRYPTION_KEY/);

    // With the key that opens it, the server starts and remembers the key's fingerprint.
    await withApp(dataDir, { TOTP_ENCRYPTION_KEY: key.toString('hex') }, (t) =>
      expect(fingerprintOf(t)).toEqual(expect.any(String)),
    );
  });

  it('lets the key change while nothing is sealed with it, and remembers the new one', async () => {
    const dataDir = newDataDir();
    const first = await withApp(dataDir, {}, (t) => fingerprintOf(t));
    const second = await withApp(dataDir, { TOTP_ENCRYPTION_KEY: randomBytes(32).toString('hex') }, (t) =>
      fingerprintOf(t),
    );
    expect(second).toEqual(expect.any(String));
    expect(second).not.toBe(first);
  });
});
