import { expect, test, type Page } from '@playwright/test';
import { NEW_PASSWORD, createUser, type TestUser } from '../support/users.js';
import { signIn, signInOnProvider } from '../support/sign-in.js';
import { fillPasswordForm, openPasswordChange } from './password-helpers.js';

async function openChangeView(page: Page, user: TestUser) {
  await signIn(page, user, '/password');
  await openPasswordChange(page, user.email);
}

test('a user changes the password; after Logout the old one is refused and the new one works', async ({
  page,
}) => {
  const user = await createUser();
  await openChangeView(page, user);

  // The rules are a live checklist under New Password, announced through the field's description.
  const newPassword = page.getByLabel('New Password');
  await newPassword.fill('tumbling');
  await expect(newPassword).toHaveAccessibleDescription(/At least 1 number ?, not met/);
  await expect(newPassword).toHaveAccessibleDescription(/At least 8 characters ?, met/);
  const save = page.getByRole('button', { name: 'Save' });
  await expect(save).toBeDisabled();

  await fillPasswordForm(page, user.password, NEW_PASSWORD);
  await expect(newPassword).not.toHaveAccessibleDescription(/not met/);
  await expect(save).toBeEnabled();
  const answer = page.waitForResponse(
    (response) =>
      response.url().endsWith(`/api/password/${user.sub}/change`) && response.request().method() === 'PUT',
  );
  await save.click();
  const response = await answer;
  expect(response.status()).toBe(200);
  const timing = (await response.allHeaders())['server-timing'] ?? '';
  test.info().annotations.push({ type: 'argon2 (server)', description: timing });

  await expect(page.getByText('Your changes are saved.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Change Password' })).toBeVisible();
  await expect(page.getByLabel('Current Password')).toHaveCount(0);

  // The portal's own session survives the change: a reload stays signed in and the API still answers.
  await page.reload();
  await expect(page.getByRole('heading', { level: 1, name: 'Password' })).toBeVisible();
  await page
    .getByRole('navigation', { name: 'Account pages' })
    .getByRole('link', { name: 'My Profile' })
    .click();
  await expect(page.getByRole('table')).toContainText(user.familyName);

  await page.getByRole('button', { name: `User menu for ${user.name}` }).click();
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();

  await signInOnProvider(page, user);
  await expect(page.getByRole('alert')).toHaveText('Incorrect email or password.');

  await signInOnProvider(page, { email: user.email, password: NEW_PASSWORD });
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByRole('table')).toContainText(user.email);
});
