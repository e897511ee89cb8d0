import { expect, test } from '@playwright/test';
import { ALICE } from '../support/users.js';

// The wrong password's message on this page: a11y.spec.ts (with axe). A deep link coming back after the sign-in:
// every journey that starts signed out on its own page (support/sign-in.ts `signIn` awaits the same URL).
import { signInOnProvider } from '../support/sign-in.js';

test('alice signs in through the provider page and lands on her profile', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/oauth2\/default\//);
  await signInOnProvider(page, ALICE);

  await expect(page).toHaveURL(/\/profile$/);
  await expect(page).toHaveTitle('My Profile');
  await expect(page.getByRole('heading', { level: 1, name: 'My Profile' })).toBeVisible();
  const details = page.getByRole('table');
  await expect(details).toContainText('Alice');
  await expect(details).toContainText('Liddell');
  await expect(details).toContainText('alice@example.com');
  await expect(details).toContainText('United Kingdom');
  await expect(page.getByRole('button', { name: 'User menu for Alice Liddell' })).toBeVisible();
});
