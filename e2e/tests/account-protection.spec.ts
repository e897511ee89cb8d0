import { expect, test, type Page } from '@playwright/test';
import { expectNoSeriousViolations } from '../support/axe.js';
import { ageSignIns } from '../support/database.js';
import { motionsSettled } from '../support/motion.js';
import { signIn, signInNewUser, signInOnProvider } from '../support/sign-in.js';
import { NEW_PASSWORD, createUser } from '../support/users.js';
import {
  appSwitch,
  enrolAuthenticator,
  googleSection,
  logout,
  noticeFor,
  signInWithCode,
} from './security-helpers.js';

// Codes come in 30-second steps and each may be used once: these flows can wait for the next step.
test.describe.configure({ timeout: 150_000 });
// With antd's motions, as most holders see the pages (the rest of the suite runs with reduced motion): the
// dialogs zoom in, and the test waits for them to settle before it clicks.
test.use({ reducedMotion: 'no-preference' });

async function changePassword(page: Page, current: string, next: string) {
  await page.getByRole('button', { name: 'Change Password' }).click();
  await page.getByLabel('Current Password').fill(current);
  await page.getByLabel('New Password').fill(next);
  await page.getByLabel('Confirm Password').fill(next);
  await page.getByRole('button', { name: 'Save' }).click();
}

test('with 2-step verification on, the Password page asks for the second factor before it saves, and the holder is mailed', async ({
  page,
  request,
}) => {
  const user = await signInNewUser(page, '/security');
  const app = await enrolAuthenticator(page);
  // A new sign-in (with its code): this session has not verified for the Security page yet.
  await logout(page, user.name);
  await signInWithCode(page, user, () => app.code(), '/password');

  const since = new Date(Date.now() - 1000).toISOString();
  await changePassword(page, user.password, NEW_PASSWORD);
  const dialog = page.getByRole('dialog', { name: '2-step verification' });
  await expect(dialog.getByRole('heading', { name: 'Verify to continue' })).toBeVisible();
  await expectNoSeriousViolations(page, 'password: step-up before saving', { include: '[role=dialog]' });
  // Close returns to the form as it was; Save asks again.
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByLabel('Current Password')).toHaveValue(user.password);
  await expect(page.getByText('Your changes are saved.')).toHaveCount(0);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('heading', { name: 'Verify to continue' })).toBeVisible();
  await motionsSettled(page);

  await dialog.getByRole('button', { name: 'Verify' }).click();
  await expect(
    dialog.getByRole('heading', { name: 'Please check your code on Google Authenticator' }),
  ).toBeVisible();
  await dialog.getByLabel('Enter authentication code').fill(await app.code());
  await dialog.getByRole('button', { name: 'Verify' }).click();
  // Verified: the same change is sent again, with nothing retyped.
  await expect(page.getByText('Your changes are saved.')).toBeVisible();
  await expect(dialog).toBeHidden();

  const notice = await noticeFor(request, user.email, 'Your F5 account password was changed', since);
  expect(notice.text).toMatch(/^When: .+ UTC$/m);
  expect(notice.text).toMatch(/^Browser: Chrome on \w+/m);
  expect(notice.text).toContain("If this wasn't you");
  expect(notice.text).not.toContain(NEW_PASSWORD);

  // The new password signs in (with the code).
  await logout(page, user.name);
  await signInWithCode(page, { email: user.email, password: NEW_PASSWORD }, () => app.code(), '/profile');
});

test("turning on the first factor long after signing in asks to confirm it's you", async ({ page }) => {
  const user = await signInNewUser(page, '/security');
  await expect(appSwitch(page)).toBeEnabled();
  // As if this sign-in were 10 minutes old: a stolen token of it must not be enough to turn 2-step on.
  ageSignIns(user.sub, 600);

  await appSwitch(page).click();
  const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
  await expect(dialog).toBeVisible();
  await expect(
    dialog.getByText('For your security, enter your password to turn on 2-step verification.'),
  ).toBeVisible();
  await expect(dialog.getByLabel('Password')).toBeFocused();
  await expectNoSeriousViolations(page, "security: confirm it's you", { include: '[role=dialog]' });

  // Cancel leaves 2-step off.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(appSwitch(page)).not.toBeChecked();

  await appSwitch(page).click();
  await expect(dialog).toBeVisible();
  await motionsSettled(page);
  await dialog.getByLabel('Password').fill('Not-My-Password-1');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(dialog.getByRole('alert')).toHaveText('The password is not correct.');
  await expect(dialog.getByLabel('Password')).toBeFocused();
  await dialog.getByLabel('Password').fill(user.password);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(dialog).toBeHidden();
  // The enrolment goes on where it was asked for.
  await expect(page.getByRole('img', { name: 'QR code to scan with Google Authenticator' })).toBeVisible();
  await expect(googleSection(page).getByLabel('Verification code')).toBeVisible();
});

test('a password change in one browser signs the other browsers out: their next call leads to sign-in', async ({
  page,
  browser,
}) => {
  const user = await createUser();
  const otherContext = await browser.newContext();
  const other = await otherContext.newPage();
  try {
    await signIn(other, user, '/profile');
    await expect(other.getByRole('table')).toContainText(user.email);

    await signIn(page, user, '/password');
    await changePassword(page, user.password, NEW_PASSWORD);
    await expect(page.getByText('Your changes are saved.')).toBeVisible();

    // The other browser's session ended: its next API call is refused, and the portal asks it to sign in.
    await other
      .getByRole('navigation', { name: 'Account pages' })
      .getByRole('link', { name: 'Security' })
      .click();
    await expect(other.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    await signInOnProvider(other, { email: user.email, password: NEW_PASSWORD });
    await expect(other).toHaveURL(/\/security$/);
    await expect(other.getByRole('heading', { level: 1, name: 'Security' })).toBeVisible();
  } finally {
    await otherContext.close();
  }
});
