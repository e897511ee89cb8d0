// A remote team ships a new version alone: build, upload to a versioned path on another origin, switch the
// deployment's remotes file, and roll back. Runs in its own Playwright project after every other test, because
// the server's remotes file is shared by every page of the run (playwright.config.ts).
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { buildRemoteCopy, tempFolder } from '../support/remote-build.js';
import { RemoteHost, testHostPort } from '../support/remote-host.js';
import { readRemotesFile, switchRemote, type RemotesFile } from '../support/remotes-file.js';
import { signIn } from '../support/sign-in.js';
import { createUser } from '../support/users.js';

test.describe.configure({ mode: 'serial' });

const buildId = `e2e-${randomUUID().slice(0, 8)}`;
let cdnRoot: string;
let cdn: RemoteHost;

test.beforeAll(async () => {
  // A production webpack build: 15-40 s on a quiet machine, and over 180 s at load 20.
  test.setTimeout(300_000);
  cdnRoot = tempFolder('cdn');
  // The team's changed build, uploaded next to others under a versioned path, as on a CDN.
  await buildRemoteCopy('remote-profile', path.join(cdnRoot, 'remote-profile', buildId), {
    BUILD_ID: buildId,
  });
  cdn = new RemoteHost(cdnRoot, testHostPort(test.info().parallelIndex));
  await cdn.start();
});

test.afterAll(async () => {
  await cdn?.stop();
  if (cdnRoot) rmSync(cdnRoot, { recursive: true, force: true });
});

test('switching a remote to a new version in the remotes file shows it on the next page load, and rolling back restores it', async ({
  page,
}) => {
  const user = await createUser();
  const originalEntry = readRemotesFile().remotes.remote_profile?.entry;
  expect(originalEntry).toBeDefined();
  const newEntry = `${cdn.origin}/remote-profile/${buildId}/remoteEntry.js`;
  const fromNewVersion: string[] = [];
  page.on('response', (response) => {
    if (response.url().startsWith(`${cdn.origin}/remote-profile/${buildId}/`) && response.ok())
      fromNewVersion.push(new URL(response.url()).pathname);
  });
  // The shell's own scripts, by their validators: the same before and after the switch (no shell rebuild).
  const shellScripts = new Map<string, string>();
  page.on('response', (response) => {
    const url = new URL(response.url());
    const etag = response.headers().etag;
    if (url.origin === 'http://localhost:3000' && url.pathname.endsWith('.js') && etag)
      shellScripts.set(url.pathname, etag);
  });

  await signIn(page, user);
  // The build is the team's to see, not the holder's: an attribute on the page's root, no line on the page.
  const pageRoot = page.locator('[data-build]');
  await expect(page.getByRole('table')).toContainText(user.familyName);
  const originalBuild = (await pageRoot.getAttribute('data-build')) ?? '';
  expect(originalBuild).not.toBe('');
  expect(originalBuild).not.toBe(buildId);
  await expect(page.getByText(/· build /)).toHaveCount(0);
  const shellBefore = new Map(shellScripts);

  /** What the server now answers for the profile remote (it notices a changed file within a second). */
  const servedEntry = async () =>
    ((await (await page.request.get('/remotes.json')).json()) as RemotesFile).remotes.remote_profile?.entry;

  const rollBack = switchRemote('remote_profile', newEntry);
  try {
    // Live on the next page load: no shell rebuild, no server restart.
    await expect.poll(servedEntry).toBe(newEntry);
    await page.reload();
    await expect(pageRoot).toHaveAttribute('data-build', buildId);
    // The whole page works from its new home, with the shell's signed-in user.
    await expect(page.getByRole('table')).toContainText(user.familyName);
    await page.getByRole('button', { name: 'Edit My Profile' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('table')).toContainText(user.familyName);
    // Its entry and its hashed chunks came from the versioned path on the other origin (publicPath 'auto').
    expect(fromNewVersion).toContain(`/remote-profile/${buildId}/remoteEntry.js`);
    expect(fromNewVersion.some((file) => /\.[0-9a-f]{10}\.js$/.test(file))).toBe(true);
    // And the shell is the same build as before.
    expect(shellBefore.size).toBeGreaterThan(0);
    for (const [file, etag] of shellBefore) {
      if (shellScripts.has(file)) expect(shellScripts.get(file), file).toBe(etag);
    }

    rollBack();
    await expect.poll(servedEntry).toBe(originalEntry);
    await page.reload();
    await expect(pageRoot).toHaveAttribute('data-build', originalBuild);
    await expect(page.getByRole('table')).toContainText(user.familyName);
  } finally {
    rollBack();
  }
  expect(readRemotesFile().remotes.remote_profile?.entry).toBe(originalEntry);
});
