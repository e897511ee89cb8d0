import { expect, test } from '@playwright/test';
import { ALICE } from '../support/users.js';
import { signInNewUser, signInOnProvider } from '../support/sign-in.js';

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
