// The version contract at run time: a remote built against another major version of shared-auth is refused on
// its own page, with a clear message, and never runs with a second auth context. (Switching and rolling back a
// remote's version: delivery-switch.spec.ts. A stopped remote and Retry: remotes.spec.ts.)
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { REPO_ROOT } from '../support/paths.js';
import { buildRemoteCopy, tempFolder } from '../support/remote-build.js';
import { RemoteHost, testHostPort } from '../support/remote-host.js';
import { shareScopeOf } from '../support/federation.js';
import { signIn } from '../support/sign-in.js';
import { createUser } from '../support/users.js';

const SHARED_AUTH = (
  JSON.parse(readFileSync(path.join(REPO_ROOT, 'shared-auth', 'package.json'), 'utf8')) as { version: string }
).version;
const NEXT_MAJOR = `${Number(SHARED_AUTH.split('.')[0]) + 1}.0.0`;

let buildRoot: string;

test.beforeAll(async () => {
  // A production webpack build: 15-40 s on a quiet machine, and over 180 s at load 20.
  test.setTimeout(300_000);
  buildRoot = tempFolder('next-major');
  // remote-profile as its team would build it against the next major of shared-auth.
  await buildRemoteCopy('remote-profile', buildRoot, {
    SHARED_AUTH_VERSION: NEXT_MAJOR,
    BUILD_ID: `e2e-shared-auth-${NEXT_MAJOR}`,
  });
});

test.afterAll(() => {
  if (buildRoot) rmSync(buildRoot, { recursive: true, force: true });
});

test('a remote built for another major version of shared-auth is refused on its page only, with a clear message', async ({
  page,
}, testInfo) => {
  const host = new RemoteHost(buildRoot, testHostPort(testInfo.parallelIndex));
  // This page's shell finds the profile remote at the incompatible build (the server's file is not touched).
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
  const user = await createUser();
  await host.start();
  try {
    await signIn(page, user);
    const refused = page.getByRole('heading', {
      level: 1,
      name: 'My Profile was built for a different version of the portal',
    });
    await expect(refused).toBeVisible();
    await expect(
      page.getByText(
        `It needs shared-auth ^${NEXT_MAJOR}; this portal provides ${SHARED_AUTH}. The rest of the portal still works.`,
      ),
    ).toBeVisible();
    await expect(page.getByRole('button', { name: 'Retry' })).toBeVisible();
    // The refused remote's page never rendered: no page root with its build.
    await expect(page.locator('[data-build]')).toHaveCount(0);

    // No second auth context: shared-auth is the shell's one copy; the remote's own was never run.
    const sharedAuth = ((await shareScopeOf(page))['shared-auth'] ?? []).map(({ version, from, loaded }) => ({
      version,
      from,
      loaded,
    }));
    expect(sharedAuth.filter((share) => share.loaded)).toEqual([
      { version: SHARED_AUTH, from: 'shell', loaded: true },
    ]);

    // Every other page works, and the refused page stays contained.
    const nav = page.getByRole('navigation', { name: 'Account pages' });
    await nav.getByRole('link', { name: 'Password' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Password', exact: true })).toBeVisible();
    await expect(page.getByRole('table')).toContainText(user.email);
    await nav.getByRole('link', { name: 'Security' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Security', exact: true })).toBeVisible();
    await nav.getByRole('link', { name: 'My Profile' }).click();
    await expect(refused).toBeVisible();
  } finally {
    await host.stop();
  }
});
