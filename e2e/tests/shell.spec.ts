import { expect, test } from '@playwright/test';
import { ALICE, createUser } from '../support/users.js';
import { signIn, signInNewUser, signInOnProvider } from '../support/sign-in.js';

test('logout clears local storage and signs out of the provider', async ({ page }) => {
  const user = await signInNewUser(page);
  expect(await page.evaluate(() => localStorage.getItem('okta-token-storage'))).toContain('idToken');

  await page.getByRole('button', { name: `User menu for ${user.name}` }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();

  // Back on the provider's sign-in page: the provider session is gone too.
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  const tokens = await page.evaluate(() => localStorage.getItem('okta-token-storage'));
  expect(tokens === null || !tokens.includes('idToken')).toBe(true);
});

test('the layout: skip link, header links, side navigation, footer', async ({ page }) => {
  await signIn(page, ALICE);
  await expect(page.getByRole('table')).toContainText('Liddell');
  await page.keyboard.press('Tab');
  const skip = page.getByRole('button', { name: 'Skip to content' });
  await expect(skip).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();

  await expect(page.getByRole('navigation', { name: 'Header links' }).getByRole('link')).not.toHaveCount(0);
  await expect(page.getByRole('navigation', { name: 'Account pages' }).getByRole('link')).toHaveText([
    'My Profile',
    'Password',
    'Security',
  ]);
  await expect(page.getByRole('contentinfo')).toContainText(`© ${new Date().getFullYear()}`);
});

test('a sign-in redirect error shows as "Error: message"', async ({ page }) => {
  // The provider answers this sign-in with an error instead of a code, as it does when it refuses a user.
  let state = '';
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.endsWith('/v1/authorize')) state = url.searchParams.get('state') ?? '';
  });
  await page.route(/\/interaction\/[^/]+\/password$/, async (route) => {
    const error = new URLSearchParams({
      error: 'access_denied',
      error_description: 'The user denied the request',
      state,
    });
    await route.fulfill({ status: 303, headers: { Location: `/login/callback?${error}` } });
  });
  await page.goto('/profile');
  await signInOnProvider(page, ALICE);
  await expect(page.getByText('Error: The user denied the request')).toBeVisible();
});

test('no request leaves localhost', async ({ page }) => {
  const offMachine: string[] = [];
  page.on('request', (request) => {
    const { hostname, protocol } = new URL(request.url());
    if (protocol !== 'data:' && hostname !== 'localhost') offMachine.push(request.url());
  });
  const user = await createUser();
  await page.goto('/profile');
  await signInOnProvider(page, user);
  await page.getByRole('button', { name: 'Edit My Profile' }).click();
  const flag = page.waitForResponse(/\/flags\/4x3\/fr\.svg$/);
  await page.getByLabel('Country').fill('Fra');
  expect((await flag).ok()).toBe(true);
  await page
    .getByRole('navigation', { name: 'Account pages' })
    .getByRole('link', { name: 'Security' })
    .click();
  await page
    .getByRole('navigation', { name: 'Account pages' })
    .getByRole('link', { name: 'Password' })
    .click();
  expect(offMachine).toEqual([]);
});
