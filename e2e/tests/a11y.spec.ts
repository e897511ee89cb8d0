import { expect, test } from '@playwright/test';
import { expectNoSeriousViolations } from '../support/axe.js';
import { signIn, signInNewUser, signInOnProvider } from '../support/sign-in.js';
import { createUser } from '../support/users.js';
import {
  appSwitch,
  Authenticator,
  emailSection,
  emailSwitch,
  googleSection,
  mailFor,
  wrongCode,
} from './security-helpers.js';

// axe (WCAG 2.0/2.1 A and AA) on every page, dialog and step-up screen: no serious or critical violation.
// One user per test, and the screens of that user grouped in it, to keep the sign-ins few.

const DIALOG = '[role=dialog]';

test('sign-in page, profile (view and edit), password (views and dialog)', async ({ page }) => {
  // Many screens after one sign-in: under the whole suite's load this takes up to a minute.
  test.setTimeout(120_000);
  const user = await createUser();
  await page.goto('/profile');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await expectNoSeriousViolations(page, 'the provider sign-in page');
  await signInOnProvider(page, { email: user.email, password: 'Not-the-password-1' });
  await expect(page.getByRole('alert')).toHaveText('Incorrect email or password.');
  await expectNoSeriousViolations(page, 'the provider sign-in page with wrong credentials');
  await signInOnProvider(page, user);
  await expect(page).toHaveURL(/\/profile$/);

  await expect(page.getByRole('table')).toContainText(user.email);
  await expectNoSeriousViolations(page, 'the profile page');
  await page.getByRole('button', { name: 'Edit My Profile' }).click();
  await expect(page.getByLabel('Email')).toBeDisabled();
  await expectNoSeriousViolations(page, 'the profile edit form');
  await page.getByLabel('Country').click();
  await page.getByLabel('Country').fill('Fra');
  await expect(page.getByTitle('France', { exact: true })).toBeVisible();
  await expectNoSeriousViolations(page, 'the profile edit form with the country list open');
  await page.keyboard.press('Escape');
  // The wait dialog ('Saving'), held open until axe has looked at it; then the toast.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/profile/*/update', async (route) => {
    await held;
    await route.continue();
  });
  await page.getByLabel('Last Name').fill('Axe');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('dialog', { name: 'Saving' })).toBeVisible();
  await expectNoSeriousViolations(page, "the 'Saving' wait dialog", { include: DIALOG });
  release();
  await expect(page.getByText('Your changes are saved.')).toBeVisible();
  await expectNoSeriousViolations(page, 'the profile page with its toast');

  const nav = page.getByRole('navigation', { name: 'Account pages' });
  await nav.getByRole('link', { name: 'Password' }).click();
  await expect(page.getByRole('table')).toContainText(user.email);
  await expectNoSeriousViolations(page, 'the password page (initial)');
  await page.getByRole('button', { name: 'Change Password' }).click();
  await expect(page.getByText(`You are changing your password for: ${user.email}`)).toBeVisible();
  // Some rules met and some not: the checklist shows both kinds.
  await page.getByLabel('New Password').fill('tumbling');
  await expect(page.getByLabel('New Password')).toHaveAccessibleDescription(/not met/);
  await expectNoSeriousViolations(page, 'the password change view with its checklist');
  await page.getByLabel('Current Password').fill('Not-The-Password-1');
  await page.getByLabel('New Password').fill('Tumbling-Down-7Q');
  await page.getByLabel('Confirm Password').fill('Tumbling-Down-7Q');
  await page.getByRole('button', { name: 'Save' }).click();
  const refused = page.getByRole('dialog', { name: 'Changes could not be saved' });
  await expect(refused).toContainText('The current password is not correct.');
  await expectNoSeriousViolations(page, "the 'Changes could not be saved' dialog", { include: DIALOG });
  await refused.getByRole('button', { name: 'Close' }).click();
  await expect(refused).toHaveCount(0);
});

test('the settings error page', async ({ page }) => {
  await page.route('**/api/clientConfiguration/getSettings', (route) =>
    route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"down"}' }),
  );
  await page.goto('/profile');
  await expect(page.getByText('Not able to load settings')).toBeVisible();
  await expectNoSeriousViolations(page, "the settings error page ('Not able to load settings')");
});

test("the federated user's pages, the not-found view, the contained remote-error view", async ({ page }) => {
  const user = await createUser({ federated: true });
  await signIn(page, user);
  await expect(page.getByRole('table')).toContainText(user.email);
  await expectNoSeriousViolations(page, "the federated user's profile page");
  // Password and Security are not in the navigation: their addresses still answer with the message.
  await page.goto('/password');
  await expect(page.getByText('Resource not available for federated users')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Change Password' })).toHaveCount(0);
  await expectNoSeriousViolations(page, "the federated user's password page");
  await page.goto('/security');
  await expect(page.getByText('Resource not available for federated users')).toBeVisible();
  await expect(page.getByRole('switch')).toHaveCount(0);
  await expectNoSeriousViolations(page, "the federated user's security page");

  await page.goto('/no-such-page');
  await expect(page.getByRole('heading', { level: 1, name: 'Page not found' })).toBeVisible();
  await expectNoSeriousViolations(page, 'the not-found view');

  // The profile remote's entry does not load: the shell's contained message.
  await page.route('http://localhost:3001/remoteEntry.js', (route) => route.abort());
  await page.goto('/profile');
  await expect(page.getByRole('heading', { level: 1, name: 'My Profile could not be loaded' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Retry' })).toBeVisible();
  await expectNoSeriousViolations(page, 'the contained remote-error view');
});

test('security: factors, both enrolments and their dialogs, the code step of sign-in, the step-up screens', async ({
  page,
  request,
  browser,
}) => {
  // Two factors are set up, then a second browser signs in with a code and goes through step-up.
  test.setTimeout(150_000);
  const user = await signInNewUser(page, '/security');
  await expect(page.getByRole('region', { name: 'Email' })).toContainText(
    'Use verification codes via email.',
  );
  await expect(emailSwitch(page)).toBeEnabled();
  await expectNoSeriousViolations(page, 'the factors page (no factor)');

  // Email enrolment, both steps.
  await emailSwitch(page).click();
  const email = emailSection(page);
  await expect(email.getByRole('button', { name: 'Send Code' })).toBeVisible();
  await expectNoSeriousViolations(page, 'the email enrolment (step 1)');
  const before = new Date(Date.now() - 1000).toISOString();
  await email.getByRole('button', { name: 'Send Code' }).click();
  await expect(email.getByLabel('Verification code')).toBeVisible();
  const message = await mailFor(request, user.email, before);
  await email.getByLabel('Verification code').fill(message.code === '000000' ? '111111' : '000000');
  await email.getByRole('button', { name: 'Verify' }).click();
  await expect(email.getByRole('alert')).toHaveText('Invalid verification code');
  await expectNoSeriousViolations(page, 'the email enrolment (step 2, wrong code)');
  await email.getByLabel('Verification code').fill(message.code);
  await email.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('region', { name: 'Your Email Factor' }).getByText('Verified')).toBeVisible();

  // Authenticator app enrolment: QR code, the setup key dialog, a wrong code.
  await expect(appSwitch(page)).toBeEnabled();
  await appSwitch(page).click();
  const google = googleSection(page);
  await expect(
    page.getByRole('img', { name: 'QR code to scan with Google Authenticator' }).locator('svg[aria-hidden]'),
  ).toBeVisible();
  await expectNoSeriousViolations(page, 'the authenticator app enrolment with its QR code');
  await page.getByRole('button', { name: "Can't scan the QR code?" }).click();
  const keyDialog = page.getByRole('dialog', { name: 'Enter a Setup Key' });
  await expect(keyDialog).toContainText('Time based');
  await expectNoSeriousViolations(page, "the 'Enter a Setup Key' dialog", { include: DIALOG });
  const app = new Authenticator((await keyDialog.getByLabel('Setup key').innerText()).replace(/\s+/g, ''));
  await keyDialog.getByRole('button', { name: 'Close' }).click();
  await expect(keyDialog).toBeHidden();
  await google.getByLabel('Verification code').fill(wrongCode(app.secret));
  await google.getByRole('button', { name: 'Verify' }).click();
  await expect(google.getByRole('alert')).toHaveText('Not a correct verification code');
  await expectNoSeriousViolations(page, 'the authenticator app enrolment with a wrong code');
  await google.getByLabel('Verification code').fill(await app.code());
  await google.getByRole('button', { name: 'Verify' }).click();
  await expect(google.getByText(/^Added /)).toBeVisible();

  // Two active factors: switches, remove links and the confirmation dialogs.
  await expect(page.getByRole('button', { name: 'remove' })).toHaveCount(2);
  await expectNoSeriousViolations(page, 'the factors page (two factors)');
  // Each confirmation dialog is checked open, then cancelled.
  const checkDialog = async (name: string) => {
    const dialog = page.getByRole('dialog', { name });
    await expect(dialog).toBeVisible();
    await expectNoSeriousViolations(page, `the '${name}' dialog`, { include: DIALOG });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await expect(dialog).toBeHidden();
  };
  await emailSwitch(page).click();
  await checkDialog('Turn off verification with email?');
  await google.getByRole('button', { name: 'remove' }).click();
  await checkDialog('Remove your Google Authenticator account?');

  // Another browser: the provider's code step, then the portal's step-up screens.
  const context = await browser.newContext();
  try {
    const other = await context.newPage();
    await other.goto('/security');
    await signInOnProvider(other, user);
    await expect(other.getByRole('heading', { name: '2-step verification' })).toBeVisible();
    await expectNoSeriousViolations(other, "the provider's verification-code step");
    await other.getByLabel('Verification code').fill(wrongCode(app.secret));
    await other.getByRole('button', { name: 'Verify' }).click();
    await expect(other.getByRole('alert')).toBeVisible();
    await expectNoSeriousViolations(other, "the provider's verification-code step with a wrong code");
    await other.getByLabel('Verification code').fill(await app.code());
    await other.getByRole('button', { name: 'Verify' }).click();
    await expect(other).toHaveURL(/\/security$/);

    await expect(other.getByRole('heading', { name: 'Verify to continue' })).toBeVisible();
    await expectNoSeriousViolations(other, "the step-up start ('Verify to continue')");
    await other.getByRole('button', { name: 'Verify' }).click();
    await expect(
      other.getByRole('heading', { name: 'Select a verification method to continue' }),
    ).toBeVisible();
    await expectNoSeriousViolations(other, 'the step-up factor selection');
    await other.getByRole('button', { name: 'Verify with Google Authenticator' }).click();
    await expect(
      other.getByRole('heading', { name: 'Please check your code on Google Authenticator' }),
    ).toBeVisible();
    await expectNoSeriousViolations(other, 'the step-up Google Authenticator code screen');
    await other.getByLabel('Enter authentication code').fill(wrongCode(app.secret));
    await other.getByRole('button', { name: 'Verify' }).click();
    await expect(other.getByRole('alert')).toHaveText('Invalid verification code');
    await expect(other.getByRole('dialog', { name: 'Verifying' })).toBeHidden();
    await expectNoSeriousViolations(other, 'the step-up Google Authenticator code screen with a wrong code');
    await other.getByRole('button', { name: 'Cancel' }).click();
    await other.getByRole('button', { name: 'Verify with Email' }).click();
    await expect(other.getByRole('button', { name: 'Send authentication code' })).toBeVisible();
    await expectNoSeriousViolations(other, 'the step-up email code screen');
  } finally {
    await context.close();
  }
});
