import { expect, test, type Page } from '@playwright/test';
import { createUser } from '../support/users.js';
import { signIn, signInOnProvider } from '../support/sign-in.js';
import { logout } from './security-helpers.js';

async function chooseCountry(page: Page, name: string) {
  const country = page.getByLabel('Country');
  await country.click();
  await country.fill(name);
  // The list shows each country's flag and name; Enter picks the first match, as a keyboard user would.
  await expect(page.getByTitle(name, { exact: true })).toBeVisible();
  await country.press('Enter');
}

test('edit and save the last name and country: toast, then kept after a reload and a new sign-in', async ({
  page,
}) => {
  const user = await createUser({ country: 'DE' });
  await signIn(page, user);
  const details = page.getByRole('table');
  await expect(details).toContainText('Germany');

  await page.getByRole('button', { name: 'Edit My Profile' }).click();
  await expect(page.getByLabel('Email')).toBeDisabled();
  await page.getByLabel('Last Name').fill('Hargreaves');
  await chooseCountry(page, 'France');
  await page.getByRole('button', { name: 'Save' }).click();

  await expect(page.getByText('Your changes are saved.')).toBeVisible();
  await expect(details).toContainText('Hargreaves');
  await expect(details).toContainText('France');

  await page.reload();
  await expect(page.getByRole('table')).toContainText('Hargreaves');
  await expect(page.getByRole('table')).toContainText('France');

  // Cancel discards a change: nothing of it shows, before or after a reload.
  await page.getByRole('button', { name: 'Edit My Profile' }).click();
  await page.getByLabel('First Name').fill('Mallory');
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByRole('table')).toContainText(user.givenName);
  await expect(page.getByRole('table')).not.toContainText('Mallory');
  await page.reload();
  await expect(page.getByRole('table')).toContainText(user.givenName);
  await expect(page.getByRole('table')).not.toContainText('Mallory');

  await logout(page, `${user.givenName} Hargreaves`);
  await signInOnProvider(page, user);
  await expect(page.getByRole('table')).toContainText('Hargreaves');
  await expect(page.getByRole('table')).toContainText('France');
  await expect(
    page.getByRole('button', { name: `User menu for ${user.givenName} Hargreaves` }),
  ).toBeVisible();
});
