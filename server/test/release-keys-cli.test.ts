/**
 * The release keys CLI (release-keys-cli.ts): an operator creates a key for a remote on the server's database (it
 * is printed once and works at once on the running server's release API), lists keys without ever printing one,
 * revokes one by its label (refused from then on), and gets usage errors for a wrong command line.
 */
import { describe, expect, it } from 'vitest';
import { runKeysCli, type KeysCliIo } from '../src/release-keys-cli.js';
import { hashDeployKey } from '../src/releases/deploy-keys.js';
import { appForBlock, startApp } from './helpers.js';

const t = appForBlock(() => startApp());

/** The CLI's streams captured, over the test app's database (DATABASE_URL and its keys on PostgreSQL). */
function capture(): KeysCliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const { DATABASE_URL, TOTP_ENCRYPTION_KEY, KEY_RING_ENCRYPTION_KEY } = t.config;
  const env: NodeJS.ProcessEnv = DATABASE_URL
    ? {
        DATABASE_URL,
        TOTP_ENCRYPTION_KEY: TOTP_ENCRYPTION_KEY?.toString('hex'),
        KEY_RING_ENCRYPTION_KEY: KEY_RING_ENCRYPTION_KEY?.toString('hex'),
      }
    : {};
  return { stdout, stderr, out: (text) => stdout.push(text), err: (text) => stderr.push(text), env };
}

describe('release keys CLI', () => {
  it('creates a key printed once, which the running server accepts for its remote only', async () => {
    const io = capture();
    const label = `Profile team ${Date.now()}`;
    expect(
      await runKeysCli(['create', 'remote_profile', '--label', label, '--data-dir', t.dataDir], io),
    ).toBe(0);
    const key = io.stdout.join('').trim();
    expect(key).toMatch(/^pdk_[A-Za-z0-9_-]{43}$/);
    // Only its hash is stored.
    const rows = await t.app.storage.sql.all<{ key_hash: string }>(
      'SELECT key_hash FROM deploy_keys WHERE label = ?',
      [label],
    );
    expect(rows).toEqual([{ key_hash: hashDeployKey(key) }]);
    const own = await t.app.inject({
      url: '/api/v1/releases/remote_profile',
      headers: { authorization: `Deploy ${key}` },
    });
    expect(own.statusCode).toBe(200);
    const other = await t.app.inject({
      url: '/api/v1/releases/remote_security',
      headers: { authorization: `Deploy ${key}` },
    });
    expect(other.statusCode).toBe(403);

    const listing = capture();
    expect(await runKeysCli(['list', '--data-dir', t.dataDir], listing)).toBe(0);
    const line = listing.stdout.find((text) => text.startsWith(`${label}\t`));
    expect(line).toMatch(new RegExp(`^${label}\\tremote_profile\\tcreated \\S+\\tlive\\n$`));
    expect(listing.stdout.join('')).not.toContain('pdk_');

    expect(await runKeysCli(['revoke', label, '--data-dir', t.dataDir], capture())).toBe(0);
    const revoked = await t.app.inject({
      url: '/api/v1/releases/remote_profile',
      headers: { authorization: `Deploy ${key}` },
    });
    expect(revoked.statusCode).toBe(401);
    const again = capture();
    expect(await runKeysCli(['revoke', label, '--data-dir', t.dataDir], again)).toBe(1);
    expect(again.stderr.join('')).toContain('No live deploy key');
  });

  it('refuses a second live key with the same label, a bad remote name and a bad label (1)', async () => {
    const label = `Security team ${Date.now()}`;
    expect(
      await runKeysCli(['create', 'remote_security', '--label', label, '--data-dir', t.dataDir], capture()),
    ).toBe(0);
    const twice = capture();
    expect(
      await runKeysCli(['create', 'remote_security', '--label', label, '--data-dir', t.dataDir], twice),
    ).toBe(1);
    expect(twice.stderr.join('')).toContain('already');
    expect(twice.stdout).toEqual([]);
    expect(
      await runKeysCli(['create', 'remote-security', '--label', 'X', '--data-dir', t.dataDir], capture()),
    ).toBe(1);
    expect(
      await runKeysCli(
        ['create', 'remote_security', '--label', 'two\nlines', '--data-dir', t.dataDir],
        capture(),
      ),
    ).toBe(1);
  });

  it.each([
    [[]],
    [['frobnicate']],
    [['create', 'remote_profile']],
    [['create', '--label', 'Team']],
    [['revoke']],
    [['list', 'extra']],
    [['create', 'remote_profile', '--label', 'Team', '--unknown']],
  ])('answers usage (2) to %j', async (argv) => {
    const io = capture();
    expect(await runKeysCli(argv, io)).toBe(2);
    expect(io.stderr.join('')).toContain('Usage:');
  });
});
