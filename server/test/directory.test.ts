import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SecretBox } from '../src/crypto/secret-box.js';
import type { Database } from '../src/db/sql.js';
import { runCli } from '../src/directory-cli.js';
import { Directory, DuplicateEmailError, newUserId } from '../src/directory/directory.js';
import { SqlUserStore } from '../src/storage/users.js';
import { DEMO_ACCOUNTS, seedDemoAccounts } from '../src/directory/seed.js';
import { providerAdapter } from '../src/oidc/adapter.js';
import { SqlProviderStore } from '../src/storage/provider.js';
import { signIn, startApp } from './helpers.js';
import { openProjectDatabase } from './support/postgres.js';

// The SQLite file's own checks (pragmas, schema version): sqlite/directory-database.test.ts.

/** Everything a test opened, closed after it (last opened, first closed). */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh migrated database of the project's storage: a SQLite file in a temp dir, or a PostgreSQL database. */
const freshDb = () => openProjectDatabase(cleanups);

describe('directory', () => {
  let db: Database;
  let directory: Directory;
  beforeEach(async () => {
    db = await freshDb();
    directory = new Directory(new SqlUserStore(db));
  });

  it('creates users with Okta-like ids and finds them by id and by email, case-insensitively', async () => {
    const user = await directory.createUser({
      email: 'Ada@Example.com',
      password: 'Analytical-1',
      givenName: 'Ada',
      familyName: 'Lovelace',
      country: 'gb',
    });
    expect(user).toMatchObject({ email: 'ada@example.com', country: 'GB', isFederated: false });
    expect(user.id).toMatch(/^00u[0-9A-Za-z]{17}$/);
    expect(await directory.findById(user.id)).toEqual(user);
    expect(await directory.findByEmail('ADA@example.COM')).toEqual(user);
    await expect(
      directory.createUser({
        email: 'ada@EXAMPLE.com',
        password: 'x',
        givenName: 'A',
        familyName: 'B',
        country: 'GB',
      }),
    ).rejects.toBeInstanceOf(DuplicateEmailError);
    const row = await db.get<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = ?', [
      user.id,
    ]);
    expect(row?.password_hash).toMatch(/^\$argon2id\$/);
  });

  it('verifies passwords', async () => {
    const user = await directory.createUser({
      email: 'bob@example.com',
      password: 'Builder-42',
      givenName: 'Bob',
      familyName: 'Builder',
      country: 'IE',
    });
    expect(await directory.verifyPassword('BOB@example.com', 'Builder-42')).toEqual(user);
    expect(await directory.verifyPassword('bob@example.com', 'builder-42')).toBeUndefined();
    expect(await directory.verifyPassword('nobody@example.com', 'Builder-42')).toBeUndefined();
    await directory.setPassword(user.id, 'New-Password-7');
    expect(await directory.verifyPassword('bob@example.com', 'New-Password-7')).toBeDefined();
    // Users without a password (created from an Okta token) never sign in here.
    await directory.createUser({ email: 'okta@example.com', givenName: 'O', familyName: 'K', country: '' });
    expect(await directory.verifyPassword('okta@example.com', '')).toBeUndefined();
  });

  it('updates only the given profile fields', async () => {
    const user = await directory.createUser({
      email: 'c@example.com',
      password: 'Password-1',
      givenName: 'Cee',
      familyName: 'Dee',
      country: 'US',
    });
    const updated = await directory.updateProfile(user.id, { familyName: 'Eff' });
    expect(updated).toMatchObject({ givenName: 'Cee', familyName: 'Eff', country: 'US' });
    expect(await directory.findById(user.id)).toEqual(updated);
    expect(await directory.updateProfile('00uMissing', { givenName: 'X' })).toBeUndefined();
  });

  it('seeds the demo accounts once and keeps their later edits', async () => {
    expect(await seedDemoAccounts(directory)).toHaveLength(2);
    const alice = await directory.findByEmail('alice@example.com');
    expect(alice).toMatchObject({
      givenName: 'Alice',
      familyName: 'Liddell',
      country: 'GB',
      isFederated: false,
    });
    expect(await directory.findByEmail('sam@partner.example')).toMatchObject({
      givenName: 'Sam',
      familyName: 'Taylor',
      country: 'US',
      isFederated: true,
    });
    await directory.updateProfile(alice?.id ?? '', { country: 'FR' });
    expect(await seedDemoAccounts(directory)).toHaveLength(0);
    expect((await directory.findByEmail('alice@example.com'))?.country).toBe('FR');
    for (const account of DEMO_ACCOUNTS) {
      expect(await directory.verifyPassword(account.email, account.password)).toBeDefined();
    }
  });

  it('makes unique ids', () => {
    const ids = new Set(Array.from({ length: 1000 }, newUserId));
    expect(ids.size).toBe(1000);
  });
});

describe('provider storage', () => {
  it('stores, consumes, finds by uid, revokes by grant, lists an account’s grants and expires rows', async () => {
    const db = await freshDb();
    const store = new SqlProviderStore(db, { records: new SecretBox(randomBytes(32)) });
    const tokens = providerAdapter(store)('RefreshToken');
    await tokens.upsert(
      'rt1',
      { accountId: '00uA', grantId: 'g1', sessionUid: 's1', jti: 'rt1' } as never,
      60,
    );
    await tokens.upsert('rt2', { accountId: '00uA', grantId: 'g2', jti: 'rt2' } as never, 60);
    await providerAdapter(store)('Session').upsert('sess', { uid: 'u1', accountId: '00uA' } as never, 60);
    expect(await tokens.find('rt1')).toMatchObject({ grantId: 'g1', jti: 'rt1' });
    await tokens.consume('rt1');
    // Just rotated: still usable for the grace period (two tabs refreshing at once), consumed after it.
    expect(await tokens.find('rt1')).not.toHaveProperty('consumed');
    await db.run("UPDATE oidc_payloads SET consumed_at = consumed_at - 31 WHERE model = 'RefreshToken'");
    expect(await tokens.find('rt1')).toMatchObject({ consumed: expect.any(Number) });
    expect(await providerAdapter(store)('Session').findByUid('u1')).toMatchObject({ accountId: '00uA' });
    expect((await store.grantsOfAccount('00uA')).map((g) => g.grantId).sort()).toEqual(['g1', 'g2']);
    await tokens.revokeByGrantId('g1');
    expect(await tokens.find('rt1')).toBeUndefined();
    await tokens.upsert('old', { jti: 'old' } as never, -1);
    expect(await tokens.find('old')).toBeUndefined();
    expect(await store.deleteExpired()).toBe(1);
    await tokens.destroy('rt2');
    expect(await tokens.find('rt2')).toBeUndefined();
  });
});

describe('directory CLI', () => {
  it('adds a user to the database of a running server, who can then sign in', async () => {
    const running = await startApp();
    // The CLI finds the server's database as the server does: DATABASE_URL (with its key) or the data folder.
    const { DATABASE_URL, TOTP_ENCRYPTION_KEY, KEY_RING_ENCRYPTION_KEY } = running.config;
    if (DATABASE_URL !== undefined) {
      vi.stubEnv('DATABASE_URL', DATABASE_URL);
      vi.stubEnv('TOTP_ENCRYPTION_KEY', TOTP_ENCRYPTION_KEY?.toString('hex'));
      vi.stubEnv('KEY_RING_ENCRYPTION_KEY', KEY_RING_ENCRYPTION_KEY?.toString('hex'));
    }
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const code = await runCli([
        'add-user',
        '--email',
        'fresh@example.com',
        '--password',
        'Fresh-Password-1',
        '--given-name',
        'Fresh',
        '--family-name',
        'User',
        '--country',
        'nz',
        '--data-dir',
        running.dataDir,
      ]);
      expect(code).toBe(0);
      const printed = JSON.parse(String(out.mock.calls[0]?.[0])) as Record<string, unknown>;
      expect(printed).toMatchObject({
        id: expect.stringMatching(/^00u/),
        email: 'fresh@example.com',
        givenName: 'Fresh',
        familyName: 'User',
        country: 'NZ',
        isFederated: false,
      });
      expect(await running.app.directory.findById(String(printed.id))).toBeDefined();
      const { callback } = await signIn(running.app, {
        email: 'fresh@example.com',
        password: 'Fresh-Password-1',
      });
      expect(callback.searchParams.get('code')).toBeTruthy();

      expect(
        await runCli([
          'add-user',
          '--email',
          'fresh@example.com',
          '--password',
          'Another-1',
          '--given-name',
          'F',
          '--family-name',
          'U',
          '--country',
          'NZ',
          '--data-dir',
          running.dataDir,
        ]),
      ).toBe(1);
      expect(String(err.mock.calls.at(-1)?.[0])).toContain('already exists');
      out.mockClear();
      expect(
        await runCli([
          'add-user',
          '--email',
          'partner@example.org',
          '--password',
          'Partner-Password-1',
          '--given-name',
          'Pat',
          '--family-name',
          'Partner',
          '--country',
          'CA',
          '--federated',
          '--data-dir',
          running.dataDir,
        ]),
      ).toBe(0);
      expect(JSON.parse(String(out.mock.calls[0]?.[0]))).toMatchObject({ isFederated: true, country: 'CA' });
      expect(await runCli(['add-user', '--email', 'nope', '--data-dir', running.dataDir])).toBe(2);
      expect(await runCli(['frobnicate'])).toBe(2);
    } finally {
      out.mockRestore();
      err.mockRestore();
      vi.unstubAllEnvs();
      await running.close();
    }
  });
});
