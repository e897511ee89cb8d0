/**
 * Issue 9, row 4: the built-in mailbox (every user's codes) and the demo accounts (known passwords) exist only in
 * the local development default (PUBLIC_URL on http://localhost) or where a deployment opts in by name; never with
 * an https PUBLIC_URL. A deleted demo account stays deleted. No password is printed outside the development default.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_ACCOUNTS } from '../src/directory/seed.js';
import { startupBanner } from '../src/banner.js';
import { loadConfig } from '../src/config/index.js';
import { ALICE, SAM, startApp, tempDir, type TestApp } from './helpers.js';

/** A settings file whose Domain is `publicUrl`, so the embedded provider runs there. */
function embeddedAt(dataDir: string, publicUrl: string): Record<string, string> {
  const settings = path.join(dataDir, 'settings.json');
  writeFileSync(settings, JSON.stringify({ Domain: publicUrl, ClientId: 'account-portal' }));
  return { PUBLIC_URL: publicUrl, SETTINGS_FILE: settings };
}

const DEMO_EMAILS = DEMO_ACCOUNTS.map((account) => account.email);

let running: TestApp | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('a deployment (PUBLIC_URL https or not on localhost)', () => {
  it.each(['https://portal.example', 'http://portal.internal:8080'])(
    'on %s has no mailbox and no demo account',
    async (publicUrl) => {
      const dataDir = tempDir();
      running = await startApp(embeddedAt(dataDir, publicUrl), dataDir);
      const { app } = running;
      for (const url of ['/dev/mailbox', '/dev/mailbox/messages']) {
        const response = await app.inject({ url, headers: { 'x-forwarded-proto': 'https' } });
        expect(response.statusCode, url).toBe(404);
      }
      expect(app.mailer.transport).toBe('none');
      for (const email of DEMO_EMAILS) expect(await app.directory.findByEmail(email), email).toBeUndefined();
    },
  );

  it('opts in by name on plain http (DEV_MAILBOX, DEMO_ACCOUNTS)', async () => {
    const dataDir = tempDir();
    running = await startApp(
      { ...embeddedAt(dataDir, 'http://portal.internal:8080'), DEV_MAILBOX: 'true', DEMO_ACCOUNTS: 'true' },
      dataDir,
    );
    expect((await running.app.inject('/dev/mailbox/messages')).statusCode).toBe(200);
    for (const email of DEMO_EMAILS)
      expect(await running.app.directory.findByEmail(email), email).toBeDefined();
  });
});

describe('the development default', () => {
  it('can turn each surface off', async () => {
    running = await startApp({ DEV_MAILBOX: 'false', DEMO_ACCOUNTS: 'false' });
    expect((await running.app.inject('/dev/mailbox/messages')).statusCode).toBe(404);
    expect(await running.app.directory.findByEmail(ALICE.email)).toBeUndefined();
  });

  it('seeds the demo accounts once per data folder: a deleted one stays deleted', async () => {
    const dataDir = tempDir();
    try {
      let t = await startApp({}, dataDir);
      const alice = await t.app.directory.findByEmail(ALICE.email);
      if (!alice) throw new Error('no demo account for Alice');
      await t.app.storage.sql.run('DELETE FROM users WHERE id = ?', [alice.id]);
      await t.app.close();

      t = await startApp({}, dataDir);
      expect(await t.app.directory.findByEmail(ALICE.email)).toBeUndefined();
      expect(await t.app.directory.findByEmail(SAM.email)).toBeDefined();
      await t.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('counts a data folder seeded before this change as seeded (a demo email exists, no meta row)', async () => {
    const dataDir = tempDir();
    try {
      let t = await startApp({}, dataDir);
      // The folder as an older server left it: Sam deleted, no record of the seeding.
      await t.app.storage.sql.run("DELETE FROM meta WHERE key LIKE 'demo%'");
      await t.app.storage.sql.run('DELETE FROM users WHERE email = ?', [SAM.email]);
      await t.app.close();

      t = await startApp({}, dataDir);
      expect(await t.app.directory.findByEmail(SAM.email)).toBeUndefined();
      expect(await t.app.directory.findByEmail(ALICE.email)).toBeDefined();
      await t.close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the start-up banner', () => {
  const demo = DEMO_ACCOUNTS.map(({ email }) => ({ email }));

  it('prints the demo passwords in the development default', () => {
    const banner = startupBanner(loadConfig({}), demo);
    for (const account of DEMO_ACCOUNTS) expect(banner).toContain(`${account.email} / ${account.password}`);
  });

  it('never prints a password elsewhere, even with the demo accounts opted in', () => {
    const dataDir = tempDir();
    try {
      const config = loadConfig({
        ...embeddedAt(dataDir, 'http://portal.internal:8080'),
        DEMO_ACCOUNTS: 'true',
      });
      const banner = startupBanner(config, demo);
      for (const account of DEMO_ACCOUNTS) {
        expect(banner).toContain(account.email);
        expect(banner).not.toContain(account.password);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('lists only the demo accounts that exist', () => {
    const banner = startupBanner(loadConfig({}), [{ email: SAM.email }]);
    expect(banner).not.toContain(ALICE.email);
    expect(banner).toContain(SAM.email);
  });
});
