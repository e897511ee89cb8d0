// Okta mode: the Password page changes the password in Okta (old and new password, Okta checks the old one and
// the org's policy). Afterwards Okta's own sign-in refuses the old password; the org's policy refusals reach the
// page's 'Changes could not be saved' dialog with Okta's text.
import type { Page } from '@playwright/test';
import { expect, signInOnOkta, signInWithOkta, test } from '../../support/okta-fixture.js';
import type { OktaTestUser } from '../../support/okta.js';
import { SIGN_IN_REFUSED } from '../../../server/test/support/okta-org/index.js';
import { logout } from '../security-helpers.js';
import { fillPasswordForm, openPasswordChange } from '../password-helpers.js';
import { NEW_PASSWORD } from '../../support/users.js';

// Meets every rule of the portal's, so the page lets it through; the org's policy asks for a symbol too.
const NO_SYMBOL = 'TumblingDown7Q';

async function openChangeView(page: Page, user: OktaTestUser) {
  await signInWithOkta(page, user, '/password');
  await openPasswordChange(page, user.email);
}

test('change the password: Okta holds the new one, and its sign-in refuses the old one afterwards', async ({
  page,
  okta,
  user,
}) => {
  await openChangeView(page, user);
  await fillPasswordForm(page, user.password, NEW_PASSWORD);
  const save = page.getByRole('button', { name: 'Save' });
  await expect(save).toBeEnabled();
  await save.click();
  await expect(page.getByText('Your changes are saved.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Change Password' })).toBeVisible();

  expect(okta.org.passwordMatches(user.sub, NEW_PASSWORD)).toBe(true);
  expect(okta.org.passwordMatches(user.sub, user.password)).toBe(false);
  const changes = okta.org
    .requests()
    .filter((request) => request.path === `/api/v1/users/${user.sub}/credentials/change_password`);
  expect(changes.map((request) => request.status)).toEqual([200]);

  // Okta's own sign-in page: the old password is refused, the new one signs in.
  await logout(page, user.name);
  await signInOnOkta(page, user);
  await expect(page.getByRole('alert')).toHaveText(SIGN_IN_REFUSED);
  await signInOnOkta(page, { email: user.email, password: NEW_PASSWORD });
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByRole('table')).toContainText(user.email);
});

test("the org's password policy refuses a password the page accepts: 'Changes could not be saved' with Okta's text", async ({
  page,
  okta,
  user,
}) => {
  await openChangeView(page, user);
  await fillPasswordForm(page, user.password, NO_SYMBOL);
  // The portal's own rules are all met: the page sends it.
  await expect(page.getByLabel('New Password')).not.toHaveAccessibleDescription(/not met/);
  await page.getByRole('button', { name: 'Save' }).click();

  const dialog = page.getByRole('dialog', { name: 'Changes could not be saved' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(
    'Password requirements were not met. Password requirements: at least 8 characters, a lowercase letter, an uppercase letter, a number, a symbol, no parts of your username.',
  );
  await expect(dialog).toContainText('Please make the necessary changes and try again');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toHaveCount(0);

  // Back in the form with what was typed; Okta still has the old password.
  await expect(page.getByLabel('New Password')).toHaveValue(NO_SYMBOL);
  expect(okta.org.passwordMatches(user.sub, user.password)).toBe(true);
  const changes = okta.org
    .requests()
    .filter((request) => request.path === `/api/v1/users/${user.sub}/credentials/change_password`);
  expect(changes.map((request) => [request.status, request.responseBody])).toEqual([
    [400, expect.objectContaining({ errorCode: 'E0000001' })],
  ]);
});
