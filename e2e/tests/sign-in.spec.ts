import { expect, test } from '@playwright/test';
import { ALICE } from '../support/users.js';
import { signIn, signInOnProvider } from '../support/sign-in.js';

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

test('a wrong password gets a clear message on the sign-in page', async ({ page }) => {
  await page.goto('/profile');
  await signInOnProvider(page, { email: ALICE.email, password: 'not-her-password' });
  await expect(page.getByRole('alert')).toHaveText('Incorrect email or password.');
  await expect(page.getByLabel('Email')).toHaveValue(ALICE.email);
});

test('a deep link while signed out comes back to that page after sign-in', async ({ page }) => {
  await signIn(page, ALICE, '/password');
  await expect(page).toHaveURL(/\/password$/);
});
