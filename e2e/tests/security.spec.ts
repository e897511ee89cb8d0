import { expect, test } from '@playwright/test';
import { expectNoSeriousViolations } from '../support/axe.js';
import { signInNewUser } from '../support/sign-in.js';
import {
  appSwitch,
  bothFactorsAndAnotherBrowser,
  emailSection,
  emailSwitch,
  enrolAuthenticator,
  enrolEmail,
  googleSection,
  logout,
  mailFor,
  signInWithCode,
  waitForResendWindow,
  wrongCode,
} from './security-helpers.js';

// Codes come in 30-second steps and each may be used once: these flows can wait for the next step.
test.describe.configure({ timeout: 150_000 });
// Axe (support/axe.ts) looks at every screen of these journeys as they show it: the factors page, both
// enrolments and their dialogs, the provider's code step and each step-up screen.
const DIALOG = '[role=dialog]';

test('enrol the authenticator app, sign in again with a code, and pass step-up with it (wrong codes first)', async ({
  page,
  browser,
}) => {
  const user = await signInNewUser(page, '/security');
  await expect(
    page.getByText(
      "Protect your account with 2-step verification. Each time you sign in to your F5 account, you'll need your password and a verification code.",
    ),
  ).toBeVisible();
  // No factor yet: no challenge, straight to the factors.
  await expect(page.getByRole('region', { name: 'Email' })).toContainText(
    'Use verification codes via email.',
  );
  await expect(emailSwitch(page)).toBeEnabled();
  await expectNoSeriousViolations(page, 'the factors page (no factor)');
  const app = await enrolAuthenticator(page, { wrongFirst: true, checkA11y: true });
  // The only active factor cannot be turned off, and nothing can be removed.
  await expect(appSwitch(page)).toBeChecked();
  await expect(appSwitch(page)).toBeDisabled();
  await expect(page.getByRole('button', { name: 'remove' })).toHaveCount(0);

  // Another browser: the password is not enough any more, and its session must pass step-up on its own.
  const other = await browser.newContext();
  const second = await other.newPage();
  await second.goto('/security');
  await second.getByLabel('Email').fill(user.email);
  await second.getByLabel('Password').fill(user.password);
  await second.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(second.getByRole('heading', { name: '2-step verification' })).toBeVisible();
  await expect(second.getByRole('button', { name: 'Send code by email' })).toHaveCount(0);
  await expectNoSeriousViolations(second, "the provider's verification-code step");
  await second.getByLabel('Verification code').fill(wrongCode(app.secret));
  await second.getByRole('button', { name: 'Verify' }).click();
  await expect(second.getByRole('alert')).toHaveText(
    'That verification code is not correct. Check it and try again.',
  );
  await expectNoSeriousViolations(second, "the provider's verification-code step with a wrong code");
  await second.getByLabel('Verification code').fill(await app.code());
  await second.getByRole('button', { name: 'Verify' }).click();
  await expect(second).toHaveURL(/\/security$/);

  await expect(second.getByRole('heading', { name: 'Verify to continue' })).toBeVisible();
  await expect(second.getByText('You will access security information after verification.')).toBeVisible();
  await expectNoSeriousViolations(second, "the step-up start ('Verify to continue')");
  await second.getByRole('button', { name: 'Verify' }).click();
  // One factor: straight to its screen.
  await expect(
    second.getByRole('heading', { name: 'Please check your code on Google Authenticator' }),
  ).toBeVisible();
  const input = second.getByLabel('Enter authentication code');
  await expect(input).toHaveAttribute('placeholder', '123456');
  await expect(second.getByRole('button', { name: 'Verify' })).toBeDisabled();
  await expectNoSeriousViolations(second, 'the step-up Google Authenticator code screen');
  await input.fill(wrongCode(app.secret));
  await second.getByRole('button', { name: 'Verify' }).click();
  await expect(second.getByRole('alert')).toHaveText('Invalid verification code');
  await expect(second.getByRole('dialog', { name: 'Verifying' })).toBeHidden();
  await expectNoSeriousViolations(second, 'the step-up Google Authenticator code screen with a wrong code');
  await input.fill(await app.code());
  await second.getByRole('button', { name: 'Verify' }).click();
  await expect(googleSection(second).getByText(/^Added /)).toBeVisible();
  // The grant lasts: a reload shows the factors without a new challenge.
  await second.reload();
  await expect(googleSection(second).getByText(/^Added /)).toBeVisible();
  await other.close();

  // The first browser verified by enrolling; it signs out and back in with a code.
  await logout(page, user.name);
  await signInWithCode(page, user, () => app.code(), '/profile');
  await expect(page.getByRole('table')).toContainText(user.email);
});

test('enrol email with the mailbox code, turn a factor off and on, and remove one', async ({
  page,
  request,
}) => {
  const user = await signInNewUser(page, '/security');
  await enrolEmail(page, request, user.email, { wrongFirst: true, checkA11y: true });
  await expect(emailSection(page)).toContainText(/[a-z0-9]\.\.\.\.[a-z0-9]@example\.org/);
  await expect(emailSection(page).getByText(/^Added /)).toBeVisible();
  await expect(emailSwitch(page)).toBeDisabled();

  await enrolAuthenticator(page);
  // Two active factors: either can be turned off or removed.
  await expect(page.getByRole('button', { name: 'remove' })).toHaveCount(2);
  await expect(emailSwitch(page)).toBeEnabled();
  await expectNoSeriousViolations(page, 'the factors page (two factors)');

  await emailSwitch(page).click();
  let dialog = page.getByRole('dialog', { name: 'Turn off verification with email?' });
  await expect(dialog).toBeVisible();
  await expectNoSeriousViolations(page, "the 'Turn off verification with email?' dialog", {
    include: DIALOG,
  });
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  await expect(emailSwitch(page)).toBeChecked();

  await emailSwitch(page).click();
  await page
    .getByRole('dialog', { name: 'Turn off verification with email?' })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await expect(page.getByText('Verification with email is turned off.')).toBeVisible();
  await expect(emailSwitch(page)).not.toBeChecked();
  await expect(appSwitch(page)).toBeDisabled();
  await expect(page.getByRole('button', { name: 'remove' })).toHaveCount(0);

  await emailSwitch(page).click();
  await expect(page.getByText('Verification with email is turned on.')).toBeVisible();
  await expect(emailSwitch(page)).toBeChecked();
  await expect(page.getByRole('button', { name: 'remove' })).toHaveCount(2);

  await googleSection(page).getByRole('button', { name: 'remove' }).click();
  dialog = page.getByRole('dialog', { name: 'Remove your Google Authenticator account?' });
  await expect(dialog).toBeVisible();
  await expectNoSeriousViolations(page, "the 'Remove your Google Authenticator account?' dialog", {
    include: DIALOG,
  });
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('Google Authenticator was removed.')).toBeVisible();
  await expect(appSwitch(page)).not.toBeChecked();
  await expect(googleSection(page).getByText(/^Added /)).toHaveCount(0);
  await expect(emailSwitch(page)).toBeDisabled();

  // After a reload the server's view is the same.
  await page.reload();
  await expect(page.getByRole('region', { name: 'Your Email Factor' })).toBeVisible();
  await expect(emailSwitch(page)).toBeChecked();
  await expect(appSwitch(page)).not.toBeChecked();
});

test('sign in with an email code, then step-up by email (wrong code first)', async ({ page, request }) => {
  const user = await signInNewUser(page, '/security');
  const enrolment = await enrolEmail(page, request, user.email);
  await logout(page, user.name);

  await page.goto('/security');
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByRole('heading', { name: '2-step verification' })).toBeVisible();
  await waitForResendWindow(enrolment);
  const before = new Date(Date.now() - 1000).toISOString();
  await page.getByRole('button', { name: 'Send code by email' }).click();
  await expect(page.getByRole('status')).toContainText('We sent a code to');
  const signInMail = await mailFor(request, user.email, before);
  await page.getByLabel('Verification code').fill(signInMail.code);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/security$/);

  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(
    page.getByText(/^An authentication code will be sent to .\.\.\.\..@example\.org\.$/),
  ).toBeVisible();
  await waitForResendWindow(signInMail);
  const sinceStepUp = new Date(Date.now() - 1000).toISOString();
  await page.getByRole('button', { name: 'Send authentication code' }).click();
  await expect(
    page.getByRole('button', { name: /^Authentication code sent to .\.\.\.\..@example\.org$/ }),
  ).toBeDisabled();
  const stepUpMail = await mailFor(request, user.email, sinceStepUp);
  await page.getByLabel('Enter authentication code').fill(stepUpMail.code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid authentication code');
  await page.getByLabel('Enter authentication code').fill(` ${stepUpMail.code} `);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('region', { name: 'Your Email Factor' })).toBeVisible();
});

test('with two factors, step-up offers a choice: Back and Cancel; the flow resumes after a reload', async ({
  page,
  request,
  browser,
}) => {
  const { app, context, other } = await bothFactorsAndAnotherBrowser(page, request, browser);
  await other.getByRole('button', { name: 'Verify' }).click();
  await expect(other.getByRole('dialog', { name: 'Loading' })).toBeVisible();
  await expect(
    other.getByRole('heading', { name: 'Select a verification method to continue' }),
  ).toBeVisible();
  await expectNoSeriousViolations(other, 'the step-up factor selection');
  await other.getByRole('button', { name: 'Back' }).click();
  await expect(other.getByRole('heading', { name: 'Verify to continue' })).toBeVisible();
  await other.getByRole('button', { name: 'Verify' }).click();
  await other.getByRole('button', { name: 'Verify with Email' }).click();
  await expect(other.getByRole('button', { name: 'Send authentication code' })).toBeVisible();
  await expectNoSeriousViolations(other, 'the step-up email code screen');
  await other.getByRole('button', { name: 'Cancel' }).click();
  await other.getByRole('button', { name: 'Verify with Google Authenticator' }).click();
  await expect(
    other.getByRole('heading', { name: 'Please check your code on Google Authenticator' }),
  ).toBeVisible();
  // Stored for 5 minutes under the step-up key: a reload resumes this screen.
  await other.reload();
  await expect(
    other.getByRole('heading', { name: 'Please check your code on Google Authenticator' }),
  ).toBeVisible();
  await other.getByLabel('Enter authentication code').fill(await app.code());
  await other.getByRole('button', { name: 'Verify' }).click();
  await expect(other.getByRole('button', { name: 'remove' })).toHaveCount(2);
  await context.close();
});
