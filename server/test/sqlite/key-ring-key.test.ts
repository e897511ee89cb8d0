/**
 * Issue 18, item 4, on the embedded default (SQLite, no KEY_RING_ENCRYPTION_KEY): the key that seals the key ring
 * is generated once into DATA_DIR/key-ring-encryption-key (0600), beside the database and never in it; a start
 * without that file, or with a wrong one, over a sealed ring stops naming the setting and writes no new key. With
 * DATABASE_URL the setting is required.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from '../../src/config/env.js';
import { dataDirsPerTest, startApp } from '../helpers.js';

const KEY_FILE = 'key-ring-encryption-key';
const newDataDir = dataDirsPerTest();

async function kidAfterStart(dataDir: string, env: Record<string, string> = {}): Promise<string | undefined> {
  const t = await startApp(env, dataDir);
  try {
    return (await t.app.inject('/oauth2/default/v1/keys')).json<{ keys: { kid: string }[] }>().keys[0]?.kid;
  } finally {
    await t.app.close();
  }
}

describe('the key ring key on the embedded default', () => {
  it('is generated once into DATA_DIR, mode 0600, and kept: the next start signs with the same kid', async () => {
    const dataDir = newDataDir();
    const kid = await kidAfterStart(dataDir);
    const file = path.join(dataDir, KEY_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const key = readFileSync(file, 'utf8');
    expect(await kidAfterStart(dataDir)).toBe(kid);
    expect(readFileSync(file, 'utf8')).toBe(key);
    // The same key given as the setting opens the same ring.
    expect(await kidAfterStart(dataDir, { KEY_RING_ENCRYPTION_KEY: key.trim() })).toBe(kid);
  });

  it('stops a start without the key file over a sealed ring, naming the setting, and generates no key over it', async () => {
    const dataDir = newDataDir();
    await kidAfterStart(dataDir);
    const file = path.join(dataDir, KEY_FILE);
    rmSync(file);
    const start = startApp({}, dataDir);
    await expect(start).rejects.toThrow(ConfigError);
    await expect(start).rejects.toThrow(
      /^KEY_RING_ENCRYPTION_KEY is not set and .*key-ring-encryption-key is missing, but the database holds a key ring sealed with a key/,
    );
    expect(existsSync(file)).toBe(false);
  });

  it('stops a start with a wrong key in the file, naming the setting and the file', async () => {
    const dataDir = newDataDir();
    await kidAfterStart(dataDir);
    const file = path.join(dataDir, KEY_FILE);
    writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600 });
    await expect(startApp({}, dataDir)).rejects.toThrow(
      /^KEY_RING_ENCRYPTION_KEY: the key in .*key-ring-encryption-key cannot open the key ring in the database/,
    );
  });
});

describe('KEY_RING_ENCRYPTION_KEY with DATABASE_URL', () => {
  it('is required: instances sharing a database share the key, there is no file to fall back on', () => {
    const start = () =>
      parseEnv({
        DATABASE_URL: 'postgres://portal@localhost:5432/portal',
        TOTP_ENCRYPTION_KEY: '5f'.repeat(32),
      });
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(/\n {2}KEY_RING_ENCRYPTION_KEY=\(hidden\): is required with DATABASE_URL/);
  });

  it('refuses a value that is not a 32-byte key without echoing it', () => {
    const start = () =>
      parseEnv({
        DATABASE_URL: 'postgres://portal@localhost:5432/portal',
        TOTP_ENCRYPTION_KEY: '5f'.repeat(32),
        KEY_RING_ENCRYPTION_KEY: 'not-a-key-secret',
      });
    expect(start).toThrow(/KEY_RING_ENCRYPTION_KEY=\(hidden\): must be 32 random bytes/);
    expect(start).not.toThrow(/not-a-key-secret/);
  });
});
