// Issue 23, as a remote's team and its holders live it: releases published with the team's CLI and deploy key, a
// canary by holder, promote and rollback, integrity refusing a tampered file, and a failing canary rolled back by
// the portal itself, each live on the next page load with no shell rebuild and no restart. A portal of the test's
// own (its releases would change every other test's pages), with the remotes of `pnpm start` as the bootstrap and a
// CDN of the test's own for the new versions.
import { execFile } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync, cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { startPortal, type PortalProcess } from '../support/portal-process.js';
import { motionsSettled } from '../support/motion.js';
import { buildRemoteCopy, tempFolder } from '../support/remote-build.js';
import { RemoteHost, testHostPort } from '../support/remote-host.js';
import { RELEASES_PORTAL_PORT, REPO_ROOT } from '../support/paths.js';
import { signIn } from '../support/sign-in.js';
import { createUser, type TestUser } from '../support/users.js';

test.describe.configure({ mode: 'serial' });

const run = promisify(execFile);
const RELEASE_CLI = path.join(REPO_ROOT, 'server', 'dist', 'release-cli.js');
const KEYS_CLI = path.join(REPO_ROOT, 'server', 'dist', 'release-keys-cli.js');
const REMOTE = 'remote_profile';
/** remote-profile as `pnpm start` serves it: the build every holder has before the first release. */
const STARTED_BUILD_DIR = path.join(REPO_ROOT, 'remote-profile', 'dist');
const STARTED_ENTRY = 'http://localhost:3001/remoteEntry.js';
const CANARY_PERCENT = 50;
/** Two holders in the canary must fail before the portal rolls it back (the test's portal sets it). */
const CANARY_MIN_LOADS = 2;

const newBuild = `e2e-release-${randomUUID().slice(0, 8)}`;
let cdnRoot: string;
let cdn: RemoteHost;
let portal: PortalProcess;
let profileKey: string;
let securityKey: string;
/** Holders whose bucket for remote_profile falls under the canary's 50 %, and one whose bucket does not. */
let inCanary: [TestUser, TestUser];
let outsideCanary: TestUser;

/** The documented bucket rule (server/src/releases/canary-bucket.ts), recomputed here as a team would. */
function bucketOf(sub: string, remote: string): number {
  return createHash('sha256').update(`${sub}:${remote}`).digest().readUInt32BE(0) % 100;
}

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(script: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [script, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** `pnpm release …` as the profile team runs it (the built CLI the script names), with its key unless told. */
function release(args: string[], key: string | null = profileKey): Promise<CliResult> {
  return cli(RELEASE_CLI, args, {
    PORTAL_URL: portal.origin,
    ...(key === null ? { PORTAL_DEPLOY_KEY: '' } : { PORTAL_DEPLOY_KEY: key }),
  });
}

async function released(args: string[]): Promise<string> {
  const result = await release(args);
  expect(result.code, `pnpm release ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout;
}

interface Status {
  stable: string | null;
  canary: { version: string; percent: number } | null;
  versions: { version: string; loads: number; failures: number }[];
  events: { action: string; version: string; by: string }[];
}

async function statusOf(remote = REMOTE): Promise<Status> {
  const response = await fetch(`${portal.origin}/api/v1/releases/${remote}`, {
    headers: { Authorization: `Deploy ${profileKey}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Status;
}

/** A copy of the new build on the CDN under `version`, to publish as it is or after a change to its files. */
function cdnCopy(version: string): { dir: string; entry: string } {
  const dir = path.join(cdnRoot, 'remote-profile', version);
  cpSync(path.join(cdnRoot, 'remote-profile', '1.1.0'), dir, { recursive: true });
  return { dir, entry: `${cdn.origin}/remote-profile/${version}/remoteEntry.js` };
}

async function publish(version: string, dir: string, entry: string): Promise<void> {
  await released(['publish', REMOTE, dir, '--version', version, '--entry-url', entry]);
}

/** A holder's own browser, signed in on the test's portal. */
async function holderPage(browser: Browser, user: TestUser): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, user, `${portal.origin}/profile`);
  return page;
}

/** The build My Profile runs in this page (its root's data-build), once the page shows. */
async function profileBuild(page: Page): Promise<string> {
  const root = page.locator('[data-build]');
  await expect(page.getByRole('heading', { name: 'My Profile', exact: true, level: 1 })).toBeVisible();
  await expect(root).toHaveCount(1);
  return (await root.getAttribute('data-build')) ?? '';
}

/** What the user menu's About says of My Profile's release in this page (for the team: the page shows no build). */
async function aboutProfile(page: Page, user: TestUser): Promise<string> {
  await page.getByRole('button', { name: `User menu for ${user.name}` }).click();
  await expect(page.getByRole('menuitem', { name: 'About' })).toBeVisible();
  await motionsSettled(page);
  await page.getByRole('menuitem', { name: 'About' }).click();
  const dialog = page.getByRole('dialog', { name: 'About' });
  const row = dialog.getByRole('row').filter({ hasText: 'My Profile' });
  await expect(row).toHaveCount(1);
  const text = await row.innerText();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  return text.replace(/\s+/g, ' ').trim();
}

/** The next load report this page sends with `outcome` for `version` (the server's copy is in statusOf()). */
function loadReport(page: Page, version: string, outcome: 'loaded' | 'failed') {
  return page.waitForRequest((request) => {
    if (!request.url().endsWith('/api/v1/remote-loads') || request.method() !== 'POST') return false;
    const body = request.postDataJSON() as { remote?: string; version?: string; outcome?: string } | null;
    return body?.remote === REMOTE && body.version === version && body.outcome === outcome;
  });
}

test.beforeAll(async () => {
  // A production webpack build of the team's next version: 15-40 s on a quiet machine, minutes on a busy one.
  test.setTimeout(300_000);
  cdnRoot = tempFolder('releases-cdn');
  cdn = new RemoteHost(cdnRoot, testHostPort(test.info().parallelIndex), [
    `http://localhost:${RELEASES_PORTAL_PORT}`,
  ]);
  const [, started] = await Promise.all([
    buildRemoteCopy('remote-profile', path.join(cdnRoot, 'remote-profile', '1.1.0'), { BUILD_ID: newBuild }),
    startPortal(
      { CANARY_MIN_LOADS: String(CANARY_MIN_LOADS), SIGN_IN_POSTS_PER_MINUTE: '1000' },
      [],
      RELEASES_PORTAL_PORT,
    ),
  ]);
  portal = started;
  await cdn.start();
  const keyFor = async (remote: string, label: string) => {
    const created = await cli(KEYS_CLI, ['create', remote, '--label', label], { DATA_DIR: portal.dataDir });
    expect(created.code, created.stderr).toBe(0);
    return created.stdout.trim();
  };
  profileKey = await keyFor(REMOTE, 'Profile team');
  securityKey = await keyFor('remote_security', 'Security team');

  const inside: TestUser[] = [];
  let outside: TestUser | undefined;
  while (inside.length < 2 || !outside) {
    const user = await createUser({ dataDir: portal.dataDir });
    if (bucketOf(user.sub, REMOTE) < CANARY_PERCENT) inside.push(user);
    else outside ??= user;
  }
  inCanary = [inside[0]!, inside[1]!];
  outsideCanary = outside;
});

test.afterAll(async () => {
  await portal?.stop();
  await cdn?.stop();
  if (cdnRoot) rmSync(cdnRoot, { recursive: true, force: true });
});

test('no key, no release; a deploy key releases only its own remote', async () => {
  const publishArgs = [
    'publish',
    REMOTE,
    STARTED_BUILD_DIR,
    '--version',
    '1.0.0',
    '--entry-url',
    STARTED_ENTRY,
  ];
  // The CLI sends nothing without a key.
  const withoutKey = await release(publishArgs, null);
  expect(withoutKey.code).toBe(2);
  expect(withoutKey.stderr).toContain('PORTAL_DEPLOY_KEY');
  // The API refuses the same call without a key, and with a key it never issued.
  for (const authorization of [undefined, 'Deploy pdk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA']) {
    const response = await fetch(`${portal.origin}/api/v1/releases/${REMOTE}/rollback`, {
      method: 'POST',
      headers: authorization ? { Authorization: authorization } : {},
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: 'invalid_deploy_key' });
  }
  // The security team's key cannot release the profile remote.
  const otherTeam = await release(publishArgs, securityKey);
  expect(otherTeam.code).toBe(1);
  expect(otherTeam.stderr).toContain('forbidden_remote');
  expect((await statusOf()).versions).toEqual([]);
});

test('publish a changed remote-profile, canary it to 50 %: each holder sees one version on every load; promote; roll back', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const [canaryHolder] = inCanary;
  const stableHolder = outsideCanary;
  // Before any release: the remotes of `pnpm start` (the bootstrap file).
  const canaryPage = await holderPage(browser, canaryHolder);
  const stablePage = await holderPage(browser, stableHolder);
  const startedBuild = await profileBuild(canaryPage);
  expect(startedBuild).not.toBe(newBuild);

  // The build every holder runs becomes release 1.0.0, the stable; the new build is published as 1.1.0.
  await publish('1.0.0', STARTED_BUILD_DIR, STARTED_ENTRY);
  await released(['promote', REMOTE, '1.0.0']);
  await publish(
    '1.1.0',
    path.join(cdnRoot, 'remote-profile', '1.1.0'),
    `${cdn.origin}/remote-profile/1.1.0/remoteEntry.js`,
  );
  await released(['canary', REMOTE, '1.1.0', '--percent', String(CANARY_PERCENT)]);
  expect(await released(['status', REMOTE])).toContain('1.1.0');

  // The holder in the canary gets 1.1.0, the other 1.0.0: on this load, the next, and after signing in anew.
  for (let load = 0; load < 2; load += 1) {
    await canaryPage.reload();
    expect(await profileBuild(canaryPage)).toBe(newBuild);
    await expect(canaryPage.getByRole('table')).toContainText(canaryHolder.familyName);
    await stablePage.reload();
    expect(await profileBuild(stablePage)).toBe(startedBuild);
  }
  expect(await aboutProfile(canaryPage, canaryHolder)).toContain(`Version 1.1.0 · build ${newBuild}`);
  expect(await aboutProfile(stablePage, stableHolder)).toContain('Version 1.0.0');
  const again = await holderPage(browser, canaryHolder);
  expect(await profileBuild(again)).toBe(newBuild);
  await again.context().close();
  // The same holder on another device, through the API: the same answer.
  const resolved = async (page: Page) =>
    (
      await page.evaluate(async () => {
        const stored = JSON.parse(localStorage.getItem('okta-token-storage') ?? '{}') as {
          accessToken?: { accessToken?: string };
        };
        const response = await fetch('/remotes.json', {
          headers: { Authorization: `Bearer ${stored.accessToken?.accessToken ?? ''}` },
        });
        return (await response.json()) as { remotes: Record<string, { version: string; channel: string }> };
      })
    ).remotes[REMOTE];
  expect(await resolved(canaryPage)).toMatchObject({ version: '1.1.0', channel: 'canary' });
  expect(await resolved(stablePage)).toMatchObject({ version: '1.0.0', channel: 'stable' });
  // Each load was counted for its version.
  await expect
    .poll(async () => (await statusOf()).versions.find((row) => row.version === '1.1.0')?.loads ?? 0)
    .toBeGreaterThan(0);

  // Promote: everyone gets 1.1.0 on the next load.
  await released(['promote', REMOTE, '1.1.0']);
  await stablePage.reload();
  expect(await profileBuild(stablePage)).toBe(newBuild);
  await expect(stablePage.getByRole('table')).toContainText(stableHolder.familyName);

  // Roll back: 1.0.0 again, for everyone.
  await released(['rollback', REMOTE]);
  for (const page of [canaryPage, stablePage]) {
    await page.reload();
    expect(await profileBuild(page)).toBe(startedBuild);
  }
  const status = await statusOf();
  expect(status).toMatchObject({ stable: '1.0.0', canary: null });
  expect(status.events.slice(0, 5).map(({ action, version, by }) => `${action} ${version} ${by}`)).toEqual([
    'rollback 1.1.0 Profile team',
    'promote 1.1.0 Profile team',
    'canary 1.1.0 Profile team',
    'publish 1.1.0 Profile team',
    'promote 1.0.0 Profile team',
  ]);
  await canaryPage.context().close();
  await stablePage.context().close();
});

test('a tampered remoteEntry.js and a tampered chunk are refused, shown as the contained message, and reported', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const [holder] = inCanary;
  // Published from the team's genuine files; then someone changes them on the CDN.
  const tamperedEntry = cdnCopy('1.2.0');
  await publish('1.2.0', tamperedEntry.dir, tamperedEntry.entry);
  appendFileSync(path.join(tamperedEntry.dir, 'remoteEntry.js'), '\n;window.stolen = localStorage.length;\n');
  const tamperedChunk = cdnCopy('1.3.0');
  await publish('1.3.0', tamperedChunk.dir, tamperedChunk.entry);
  const chunks = readdirSync(tamperedChunk.dir).filter(
    (file) => file.endsWith('.js') && file !== 'remoteEntry.js',
  );
  expect(chunks.length).toBeGreaterThan(0);
  for (const chunk of chunks) {
    const file = path.join(tamperedChunk.dir, chunk);
    writeFileSync(file, `${readFileSync(file, 'utf8')}\n;window.stolen = localStorage.length;\n`);
  }

  const page = await holderPage(browser, holder);
  const stolen = () => page.evaluate(() => (window as unknown as { stolen?: number }).stolen);
  for (const version of ['1.2.0', '1.3.0']) {
    await released(['canary', REMOTE, version, '--percent', String(CANARY_PERCENT)]);
    const reported = loadReport(page, version, 'failed');
    await page.reload();
    // The contained message, inside the page; the shell and its navigation still work.
    await expect(page.getByRole('heading', { name: 'My Profile could not be loaded' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Retry' })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Account pages' })).toBeVisible();
    expect(await stolen()).toBeUndefined();
    expect((await reported).postDataJSON()).toMatchObject({ kind: 'integrity' });
    await expect
      .poll(async () => (await statusOf()).versions.find((row) => row.version === version)?.failures)
      .toBe(1);
    // One holder's failure is under the threshold of two: the team rolls it back itself.
    expect((await statusOf()).canary?.version).toBe(version);
    await released(['rollback', REMOTE]);
  }

  // A tampered stable: the page falls back, in the same load, to the previous stable (1.0.0, promoted earlier).
  await released(['promote', REMOTE, '1.2.0']);
  const reported = loadReport(page, '1.2.0', 'failed');
  await page.reload();
  await expect(page.getByRole('table')).toContainText(holder.familyName);
  expect(await profileBuild(page)).not.toBe(newBuild);
  await expect(page.locator(`[data-remote="${REMOTE}"]`)).toHaveAttribute('data-remote-version', '1.0.0');
  expect((await reported).postDataJSON()).toMatchObject({ kind: 'integrity' });
  expect(await stolen()).toBeUndefined();
  expect(await aboutProfile(page, holder)).toContain(
    'Version 1.0.0 · previous version, the latest did not load',
  );
  await released(['rollback', REMOTE]);
  expect((await statusOf()).stable).toBe('1.0.0');
  await page.context().close();
});

test('a canary that throws on load is rolled back by the portal once enough holders fail, with no restart', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  // A release whose entry runs and throws: its integrity is right (the CLI hashes the file as published).
  const throwing = cdnCopy('1.4.0');
  const entryFile = path.join(throwing.dir, 'remoteEntry.js');
  writeFileSync(entryFile, `throw new Error('1.4.0 breaks on load');\n${readFileSync(entryFile, 'utf8')}`);
  await publish('1.4.0', throwing.dir, throwing.entry);
  await released(['canary', REMOTE, '1.4.0', '--percent', String(CANARY_PERCENT)]);

  const [first, second] = inCanary;
  const firstPage = await holderPage(browser, first);
  await expect(firstPage.getByRole('heading', { name: 'My Profile could not be loaded' })).toBeVisible();
  // One holder of the two the threshold needs: still in canary.
  await expect
    .poll(async () => (await statusOf()).versions.find((row) => row.version === '1.4.0')?.failures)
    .toBe(1);
  expect((await statusOf()).canary).toEqual({ version: '1.4.0', percent: CANARY_PERCENT });

  const secondPage = await holderPage(browser, second);
  await expect(secondPage.getByRole('heading', { name: 'My Profile could not be loaded' })).toBeVisible();
  // The second failing holder passes the threshold: the portal clears the canary and says so.
  await expect.poll(async () => (await statusOf()).canary).toBeNull();
  const status = await statusOf();
  expect(status.stable).toBe('1.0.0');
  expect(status.events[0]).toMatchObject({ action: 'auto-rollback', version: '1.4.0', by: 'system' });
  expect(await released(['status', REMOTE])).toContain('auto-rollback');

  // Both holders get the stable on their next load: the same server process, the same shell build.
  for (const [page, user] of [
    [firstPage, first],
    [secondPage, second],
  ] as const) {
    await page.reload();
    await expect(page.getByRole('table')).toContainText(user.familyName);
    await expect(page.locator(`[data-remote="${REMOTE}"]`)).toHaveAttribute('data-remote-version', '1.0.0');
    await page.context().close();
  }
  expect(portal.child.exitCode).toBeNull();
});
