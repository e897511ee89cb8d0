// Faults seen from the browser: the account API, the identity provider, the settings call or a remote failing or
// slow. Each is made for one page with page.route, so the shared server keeps serving every other test. The
// portal must show the spec's message or a contained one, never a blank page or an uncaught error, and the rest
// of the page must stay usable. (One remote stopped outright is remotes.spec.ts.)
import { expectNoSeriousViolations } from '../support/axe.js';
import { expect, test, type Page, type Route } from '@playwright/test';
import { createUser } from '../support/users.js';
import { signInNewUser, signInOnProvider } from '../support/sign-in.js';

/** Errors the page did not handle; every test here ends by expecting none. */
function uncaughtErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

function navLink(page: Page, name: string) {
  return page.getByRole('navigation', { name: 'Account pages' }).getByRole('link', { name });
}

/** The account API's data calls; the settings call (read once at start-up) and okta's sessions probe are not. */
function isAccountApiCall(url: URL): boolean {
  return (
    url.pathname.startsWith('/api/') &&
    !url.pathname.startsWith('/api/clientConfiguration/') &&
    !url.pathname.startsWith('/api/v1/sessions/')
  );
}

const API_FAULTS: { name: string; fault: (route: Route) => Promise<void>; message: string }[] = [
  {
    name: 'unreachable',
    fault: (route) => route.abort('connectionrefused'),
    message: 'The account service could not be reached',
  },
  {
    // What a proxy in front of a stopped API answers: not the API's JSON error shape.
    name: 'answering 503',
    fault: (route) => route.fulfill({ status: 503, contentType: 'text/plain', body: 'Service Unavailable' }),
    message: 'The account service answered 503',
  },
];

for (const { name, fault, message } of API_FAULTS) {
  test(`the account API ${name}: each page says so in place, the header and navigation keep working, and saving works again once it is back`, async ({
    page,
  }) => {
    const errors = uncaughtErrors(page);
    const user = await signInNewUser(page);
    await expect(page.getByRole('table')).toContainText(user.familyName);

    await page.route(isAccountApiCall, fault);
    // A fresh load while the API is down: the federated check fails too (it then counts as not federated).
    await page.reload();
    await expect(page.getByRole('button', { name: `User menu for ${user.name}` })).toBeVisible();
    await expect(page.getByRole('navigation', { name: 'Account pages' }).getByRole('link')).toHaveText([
      'My Profile',
      'Password',
      'Security',
      'Devices & activity',
    ]);
    await expect(page.getByRole('table')).toContainText(user.familyName);

    // My Profile: the save fails in the form, which stays open; nothing is applied.
    await page.getByRole('button', { name: 'Edit My Profile' }).click();
    await page.getByLabel('Last Name').fill('Unsaved');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByRole('alert').filter({ hasText: message })).toBeVisible();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('table')).toContainText(user.familyName);
    await expect(page.getByRole('table')).not.toContainText('Unsaved');

    // Password: the spec's refusal dialog with the client's text.
    await navLink(page, 'Password').click();
    await page.getByRole('button', { name: 'Change Password' }).click();
    await page.getByLabel('Current Password').fill(user.password);
    await page.getByLabel('New Password').fill('Gq7Rz-Mv9Ny');
    await page.getByLabel('Confirm Password').fill('Gq7Rz-Mv9Ny');
    await page.getByRole('button', { name: 'Save' }).click();
    const refused = page.getByRole('dialog', { name: 'Changes could not be saved' });
    await expect(refused).toContainText(message);
    await expect(refused).toContainText('Please make the necessary changes and try again');
    await refused.getByRole('button', { name: 'Close' }).click();
    await expect(refused).toHaveCount(0);

    // Security: a failed challenge fetch counts as a challenge with no factors, the spec's 'Error' view.
    await navLink(page, 'Security').click();
    await expect(page.getByRole('heading', { level: 1, name: 'Security', exact: true })).toBeVisible();
    await expect(page.getByText('Error', { exact: true })).toBeVisible();

    // Devices & activity: each of its two sections says so in place, with a way to try again.
    await navLink(page, 'Devices & activity').click();
    await expect(
      page.getByRole('heading', { level: 1, name: 'Devices & activity', exact: true }),
    ).toBeVisible();
    await expect(page.getByRole('button', { name: 'Try again' })).toHaveCount(2);

    // The header's user menu still works.
    await page.getByRole('button', { name: `User menu for ${user.name}` }).click();
    await page.getByRole('menuitem', { name: 'My Profile' }).click();
    await expect(page).toHaveURL(/\/profile$/);

    // The API is back: the same page saves without a reload.
    await page.unroute(isAccountApiCall, fault);
    await page.getByRole('button', { name: 'Edit My Profile' }).click();
    await page.getByLabel('Last Name').fill('Restored');
    await page.getByRole('button', { name: 'Save' }).click();
    await expect(page.getByText('Your changes are saved.')).toBeVisible();
    await expect(page.getByRole('table')).toContainText('Restored');
    // The Security page's 'Error' is not kept: the next visit shows the factors.
    await navLink(page, 'Security').click();
    await expect(page.getByText('Use verification codes via email.')).toBeVisible();
    expect(errors).toEqual([]);
  });
}

test('the identity provider down before sign-in: a clear message instead of Loading forever, and sign-in once it is back', async ({
  page,
}) => {
  const errors = uncaughtErrors(page);
  const provider = '**/oauth2/default/**';
  await page.route(provider, (route) => route.abort('connectionrefused'));
  await page.goto('/profile');
  await expect(page.getByRole('alert')).toContainText('Error: Failed to fetch');
  await expect(page.getByRole('alert')).toContainText(
    'Signing in is not possible right now. Please try again in a few minutes.',
  );
  await expect(page.getByRole('dialog', { name: 'Loading' })).toHaveCount(0);
  await expect(page).toHaveURL(/\/profile$/);

  await page.unroute(provider);
  await page.reload();
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  expect(errors).toEqual([]);
});

test('the identity provider down when the sign-in returns (token exchange): the spec\'s "Error: message"', async ({
  page,
}) => {
  const errors = uncaughtErrors(page);
  const user = await createUser();
  await page.route('**/oauth2/default/v1/token', (route) => route.abort('connectionrefused'));
  await page.goto('/profile');
  await signInOnProvider(page, user);
  // The page stays on the callback (the sign-in library drops the code from the address once it has read it).
  await expect(page).toHaveURL(/\/login\/callback(\?|$)/);
  await expect(page.getByRole('alert')).toContainText('Error: Failed to fetch');
  await expect(page.getByRole('dialog', { name: 'Loading' })).toHaveCount(0);
  expect(errors).toEqual([]);
});

test('the identity provider down while signed in: a save still succeeds though the token renewal after it fails, and the pages keep working', async ({
  page,
}) => {
  const errors = uncaughtErrors(page);
  const user = await signInNewUser(page);
  await expect(page.getByRole('table')).toContainText(user.familyName);

  const renewals: string[] = [];
  await page.route('**/oauth2/default/**', async (route) => {
    renewals.push(new URL(route.request().url()).pathname);
    await route.abort('connectionrefused');
  });
  await page.getByRole('button', { name: 'Edit My Profile' }).click();
  await page.getByLabel('Last Name').fill('Renewless');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Your changes are saved.')).toBeVisible();
  await expect(page.getByRole('table')).toContainText('Renewless');
  // The renewal after the save was tried, and failed.
  expect(renewals).toContain('/oauth2/default/v1/token');

  await navLink(page, 'Password').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Password', exact: true })).toBeVisible();
  await expect(page.getByRole('table')).toContainText(user.email);
  await navLink(page, 'Security').click();
  await expect(page.getByRole('heading', { level: 1, name: 'Security', exact: true })).toBeVisible();
  expect(errors).toEqual([]);
});

const SETTINGS_FAULTS: { name: string; fault: (route: Route) => Promise<void>; axe?: true }[] = [
  { name: 'unreachable', fault: (route) => route.abort('connectionrefused') },
  {
    name: "answering a proxy's 502 page",
    fault: (route) =>
      route.fulfill({ status: 502, contentType: 'text/html', body: '<html><h1>502 Bad Gateway</h1></html>' }),
  },
  {
    name: 'answering a plain 500',
    fault: (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"down"}' }),
    // The page is the same whatever the fault: axe looks at it once.
    axe: true,
  },
];

for (const { name, fault, axe } of SETTINGS_FAULTS) {
  test(`the settings call ${name}: 'Not able to load settings', and no sign-in is attempted`, async ({
    page,
  }) => {
    const errors = uncaughtErrors(page);
    const providerCalls: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/oauth2/')) providerCalls.push(request.url());
    });
    await page.route('**/api/clientConfiguration/getSettings', fault);
    await page.goto('/profile');
    await expect(
      page.getByRole('heading', { level: 1, name: 'Not able to load settings', exact: true }),
    ).toBeVisible();
    await expect(page.getByRole('dialog', { name: 'Loading' })).toHaveCount(0);
    await expect(page).toHaveURL(/\/profile$/);
    expect(providerCalls).toEqual([]);
    expect(errors).toEqual([]);
    if (axe) await expectNoSeriousViolations(page, "the settings error page ('Not able to load settings')");
  });
}

/** The shell's (and the MF runtime's) script timeout: shell/src/features/remotes/api/remotesConfig.ts. */
const SCRIPT_TIMEOUT_MS = 20_000;
/** How long the test holds a slow remote's file unless it is made fast: well beyond the timeout. */
const SLOW_MS = 45_000;

/**
 * Slows one remote's files down: while `slow`, each request matching `isSlowFile` is held for SLOW_MS, or until
 * `fast()` lets every held one through (the remote is fast again).
 */
async function slowDown(page: Page, origin: string, isSlowFile: (url: URL) => boolean) {
  let slow = true;
  const held = new Set<() => void>();
  await page.route(`${origin}/**`, async (route) => {
    if (slow && isSlowFile(new URL(route.request().url()))) {
      await new Promise<void>((resolve) => {
        const release = () => {
          held.delete(release);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(release, SLOW_MS);
        held.add(release);
      });
    }
    await route.continue().catch(() => undefined);
  });
  return {
    fast() {
      slow = false;
      for (const release of [...held]) release();
    },
  };
}

const SLOW_PARTS: { name: string; isSlowFile: (url: URL) => boolean }[] = [
  { name: 'its remoteEntry.js', isSlowFile: (url) => url.pathname === '/remoteEntry.js' },
  // The page's own chunks load through the remote's webpack runtime (120 s chunk timeout), not the MF runtime.
  {
    name: 'its page chunk',
    isSlowFile: (url) => url.pathname !== '/remoteEntry.js' && url.pathname.endsWith('.js'),
  },
];

for (const { name, isSlowFile } of SLOW_PARTS) {
  test(`a slow remote (${name} takes longer than the MF script timeout): the contained message, the other pages work meanwhile, and Retry recovers once it is fast`, async ({
    page,
  }) => {
    test.slow();
    const errors = uncaughtErrors(page);
    const user = await signInNewUser(page);
    await expect(page.getByRole('table')).toContainText(user.familyName);

    const passwordRemote = await slowDown(page, 'http://localhost:3002', isSlowFile);
    const started = Date.now();
    await navLink(page, 'Password').click();
    await expect(page.getByLabel('Loading Password')).toBeVisible();

    // While it hangs, the rest of the portal works.
    await navLink(page, 'My Profile').click();
    await expect(page.getByRole('table')).toContainText(user.familyName);
    await navLink(page, 'Security').click();
    await expect(page.getByRole('heading', { level: 1, name: 'Security', exact: true })).toBeVisible();
    await navLink(page, 'Password').click();

    const failed = page.getByRole('heading', { level: 1, name: 'Password could not be loaded' });
    await expect(failed).toBeVisible({ timeout: SCRIPT_TIMEOUT_MS + 10_000 });
    const waited = Date.now() - started;
    console.log(`slow remote (${name}): the contained message after ${(waited / 1000).toFixed(1)} s`);
    expect(waited).toBeGreaterThanOrEqual(SCRIPT_TIMEOUT_MS - 1000);
    await expect(page.getByRole('button', { name: `User menu for ${user.name}` })).toBeVisible();

    passwordRemote.fast();
    await page.evaluate(() => Object.assign(window, { __beforeRetry: true }));
    await page.getByRole('button', { name: 'Retry' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Password', exact: true })).toBeVisible();
    await expect(page.getByRole('table')).toContainText(user.email);
    await expect(failed).toHaveCount(0);
    expect(await page.evaluate(() => '__beforeRetry' in window)).toBe(true);
    expect(errors).toEqual([]);
  });
}
