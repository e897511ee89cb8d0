// Okta mode: the profile the page shows is Okta's user, and a saved change lands in Okta as a partial update of
// the three attributes the page edits; nothing else of the Okta profile changes and nothing is kept locally.
import { expect, signInWithOkta, test } from '../../support/okta-fixture.js';
import { expectNoSeriousViolations } from '../../support/axe.js';
import type { Page } from '@playwright/test';

async function chooseCountry(page: Page, name: string) {
  const country = page.getByLabel('Country');
  await country.click();
  await country.fill(name);
  // The list shows each country's flag and name; Enter picks the first match, as a keyboard user would.
  await expect(page.getByTitle(name, { exact: true })).toBeVisible();
  await country.press('Enter');
}

test('sign in at Okta, see the profile from Okta, edit first name, last name and country: Okta holds the new values, nothing else changed', async ({
  page,
  okta,
  user,
}) => {
  const before = okta.org.user(user.sub)?.profile;
  expect(before).toBeDefined();

  await signInWithOkta(page, user);
  const details = page.getByRole('table');
  await expect(details).toContainText(user.email);
  await expect(details).toContainText(user.givenName);
  await expect(details).toContainText(user.familyName);
  await expect(details).toContainText('Germany');
  await expectNoSeriousViolations(page, 'My Profile in Okta mode');

  await page.getByRole('button', { name: 'Edit My Profile' }).click();
  await expect(page.getByLabel('Email')).toBeDisabled();
  await page.getByLabel('First Name').fill('Imogen');
  await page.getByLabel('Last Name').fill('Hargreaves');
  await chooseCountry(page, 'France');
  await page.getByRole('button', { name: 'Save' }).click();

  await expect(page.getByText('Your changes are saved.')).toBeVisible();
  await expect(details).toContainText('Imogen');
  await expect(details).toContainText('Hargreaves');
  await expect(details).toContainText('France');

  // Okta's user: the three attributes changed, every other attribute as it was.
  expect(okta.org.user(user.sub)?.profile).toEqual({
    ...before,
    firstName: 'Imogen',
    lastName: 'Hargreaves',
    countryCode: 'FR',
  });
  // A partial update (POST), never the PUT that replaces the whole profile.
  const writes = okta.org
    .requests()
    .filter((request) => request.path === `/api/v1/users/${user.sub}` && request.method !== 'GET');
  expect(writes.map((request) => request.method)).toEqual(['POST']);
  expect(writes[0]?.body).toEqual({
    profile: { firstName: 'Imogen', lastName: 'Hargreaves', countryCode: 'FR' },
  });

  // What a reload shows is read from Okta again.
  await page.reload();
  await expect(page.getByRole('table')).toContainText('Imogen');
  await expect(page.getByRole('table')).toContainText('Hargreaves');
  await expect(page.getByRole('table')).toContainText('France');
});
