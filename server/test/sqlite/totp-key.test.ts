/**
 * The TOTP encryption key kept in DATA_DIR's key file (SQLite mode without TOTP_ENCRYPTION_KEY; PostgreSQL mode
 * requires the setting). The rest of the key's checks run on both storages in ../totp-key.test.ts.
 */
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/index.js';
import { keyFingerprint, TOTP_KEY_FILE, TOTP_KEY_FINGERPRINT } from '../../src/crypto/totp-encryption-key.js';
import { SecretBox } from '../../src/crypto/secret-box.js';
import { ALICE, dataDirsPerTest, startApp, type TestApp } from '../helpers.js';

const newDataDir = dataDirsPerTest();

/** Starts and stops the app on `dataDir` (no TOTP_ENCRYPTION_KEY), handing it to `work` in between. */
async function withApp<T>(dataDir: string, work: (t: TestApp) => T | Promise<T>): Promise<T> {
  const t = await startApp({}, dataDir);
  try {
    return await work(t);
  } finally {
    await t.app.close();
  }
}

const keyFile = (dataDir: string) => path.join(dataDir, TOTP_KEY_FILE);
const keyInFile = (dataDir: string) => Buffer.from(readFileSync(keyFile(dataDir), 'utf8').trim(), 'hex');

const fingerprintOf = async (t: TestApp) =>
  (
    await t.app.storage.sql.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [
      TOTP_KEY_FINGERPRINT,
    ])
  )?.value;

describe('the TOTP encryption key in DATA_DIR', () => {
  it('generates the key file on first start and stores its fingerprint, never the key', async () => {
    const dataDir = newDataDir();
    await withApp(dataDir, async (t) => {
      const key = keyInFile(dataDir);
      expect(key).toHaveLength(32);
      const fingerprint = await fingerprintOf(t);
      expect(fingerprint).toBe(keyFingerprint(key));
      expect(fingerprint).not.toContain(key.toString('hex'));
    });
  });

  it('refuses to start when the key file is gone and secrets are sealed, and makes no new key', async () => {
    const dataDir = newDataDir();
    await withApp(dataDir, async (t) => {
      const alice = await t.app.directory.findByEmail(ALICE.email);
      if (!alice) throw new Error('no Alice');
      await t.app.storage.sql.run(
        `INSERT INTO user_factors (user_id, type, status, secret_enc, updated_at)
         VALUES (?, 'google-auth', 'ACTIVE', ?, ?)`,
        [
          alice.id,
          new SecretBox(keyInFile(dataDir)).seal('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', alice.id),
          new Date().toISOString(),
        ],
      );
    });
    unlinkSync(keyFile(dataDir));

    const error = await withApp(dataDir, () => undefined).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect(String(error)).toMatch(/TOTP_ENCRYPTION_KEY/);
    expect(existsSync(keyFile(dataDir))).toBe(false);
  });
});
