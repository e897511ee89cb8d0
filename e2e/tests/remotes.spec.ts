import path from 'node:path';
import { expect, test } from '@playwright/test';
import { ALICE } from '../support/users.js';
import { shareScopeOf } from '../support/federation.js';
import { signIn } from '../support/sign-in.js';
import { REPO_ROOT } from '../support/paths.js';
import { RemoteHost, testHostPort } from '../support/remote-host.js';

test('a stopped remote shows the contained message, the rest works, and Retry recovers without a reload', async ({
  page,
}, testInfo) => {
  const host = new RemoteHost(
    path.join(REPO_ROOT, 'remote-profile', 'dist'),
    testHostPort(testInfo.parallelIndex),
  );
  // This page's shell looks for the profile remote on a host of the test's own, which is down at first.
  await page.route('**/remotes.json', async (route) => {
    const response = await route.fetch();
    // The server's resolved set: only the profile remote's entry changes (a file of the remotes-file shape).
    const config = (await response.json()) as { remotes: Record<string, { entry: string }> };
    config.remotes.remote_profile = {
      ...config.remotes.remote_profile,
      entry: `${host.origin}/remoteEntry.js`,
    };
    await route.fulfill({ response, json: config });
  });
  try {
    await signIn(page, ALICE);
    await expect(
      page.getByRole('heading', { level: 1, name: 'My Profile could not be loaded' }),
    ).toBeVisible();

    // The shell and its navigation keep working, and so does every other remote's page.
    const nav = page.getByRole('navigation', { name: 'Account pages' });
    await nav.getByRole('link', { name: 'Password' }).click();
    await expect(page).toHaveURL(/\/password$/);
    await expect(page.getByRole('heading', { level: 1, name: 'My Profile could not be loaded' })).toHaveCount(
      0,
    );
    await expect(page.getByRole('heading', { level: 1, name: 'Password', exact: true })).toBeVisible();
    await expect(page.getByRole('table')).toContainText(ALICE.email);
    await nav.getByRole('link', { name: 'Security' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Security', exact: true })).toBeVisible();
    await nav.getByRole('link', { name: 'My Profile' }).click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'My Profile could not be loaded' }),
    ).toBeVisible();

    await host.start();
    // A mark on this document: it is still there after Retry, so the page was not reloaded.
    await page.evaluate(() => Object.assign(window, { __beforeRetry: true }));
    await page.getByRole('button', { name: 'Retry' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'My Profile', exact: true })).toBeVisible();
    await expect(page.getByRole('table')).toContainText('Liddell');
    expect(await page.evaluate(() => '__beforeRetry' in window)).toBe(true);
  } finally {
    await host.stop();
  }
});

test('React, react-dom, the router, antd (shared-ui) and shared-auth are each loaded once, from the shell', async ({
  page,
}) => {
  const remoteBytes: number[] = [];
  page.on('response', async (response) => {
    if (new URL(response.url()).port !== '3001' || !response.ok()) return;
    // The remote is also fetched during sign-in: a page navigated away from no longer has its bodies.
    const body = await response.body().catch(() => undefined);
    if (body) remoteBytes.push(body.length);
  });
  await signIn(page, ALICE);
  await expect(page.getByRole('table')).toContainText('Liddell');

  // The MF runtime's share scope: one version of each singleton, provided by the shell, used by the remote too.
  const shared = await shareScopeOf(page);
  for (const name of [
    'react',
    'react/jsx-runtime',
    'react-dom',
    'shared-ui',
    'shared-auth',
    'shared-router',
  ]) {
    expect(shared[name], name).toHaveLength(1);
    expect(shared[name]?.[0], name).toMatchObject({ from: 'shell', loaded: true });
  }
  for (const name of ['react', 'shared-ui', 'shared-auth']) {
    expect(shared[name]?.[0]?.useIn, name).toEqual(expect.arrayContaining(['shell', 'remote_profile']));
  }
  // And nothing big came from the remote's origin: its own code only, no second copy of a library.
  const total = remoteBytes.reduce((sum, bytes) => sum + bytes, 0);
  expect(total).toBeGreaterThan(0);
  expect(total).toBeLessThan(150_000);
});
