import { expect, test } from '@playwright/test';
import { expectNoSeriousViolations } from '../support/axe.js';
import { signIn, signInOnProvider } from '../support/sign-in.js';
import { createUser, SAM } from '../support/users.js';

// axe (WCAG 2.0/2.1 A and AA) on every page, dialog and step-up screen: no serious or critical violation. (The
// settings error page: faults.spec.ts.)
// One user per test, and the screens of that user grouped in it, to keep the sign-ins few. The Security page's
// screens (factors, enrolments, the provider's code step, step-up) are checked in security.spec.ts, in the
// journeys that show them, rather than walked through a second time here.

const DIALOG = '[role=dialog]';

test('sign-in page, profile (view and edit), password (views and dialog)', async ({ page }) => {
  // Many screens after one sign-in: under the whole suite's load this takes up to a minute.
  test.setTimeout(120_000);
  const user = await createUser();
  // Nothing a page asks for leaves the machine (fonts, flags, scripts: all served by the portal).
  const offMachine: string[] = [];
  page.on('request', (request) => {
    const { hostname, protocol } = new URL(request.url());
    if (protocol !== 'data:' && hostname !== 'localhost') offMachine.push(request.url());
  });
  await page.goto('/profile');
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await expectNoSeriousViolations(page, 'the provider sign-in page');
  await signInOnProvider(page, { email: user.email, password: 'Not-the-password-1' });
  await expect(page.getByRole('alert')).toHaveText('Incorrect email or password.');
  await expect(page.getByLabel('Email')).toHaveValue(user.email);
  await expectNoSeriousViolations(page, 'the provider sign-in page with wrong credentials');
  await signInOnProvider(page, user);
  await expect(page).toHaveURL(/\/profile$/);

  await expect(page.getByRole('table')).toContainText(user.email);
  await expectNoSeriousViolations(page, 'the profile page');
  await page.getByRole('button', { name: 'Edit My Profile' }).click();
  await expect(page.getByLabel('Email')).toBeDisabled();
  await expectNoSeriousViolations(page, 'the profile edit form');
  // Registered before the list opens: opened at the user's country (DE), it may already show France's flag.
  const flag = page.waitForResponse(/\/flags\/4x3\/fr\.svg$/);
  await page.getByLabel('Country').click();
  await page.getByLabel('Country').fill('Fra');
  await expect(page.getByTitle('France', { exact: true })).toBeVisible();
  expect((await flag).ok()).toBe(true);
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
  // Back in the form with what was typed.
  await expect(page.getByLabel('New Password')).toHaveValue('Tumbling-Down-7Q');
  await expect(page.getByRole('button', { name: 'Save' })).toBeEnabled();

  await nav.getByRole('link', { name: 'Security' }).click();
  await expect(page.getByRole('switch', { name: 'Verification with email' })).toBeVisible();
  expect(offMachine).toEqual([]);
});

test("the federated user's pages (no Password or Security, no editing), the not-found view, the contained remote-error view", async ({
  page,
}) => {
  // The demo data's federated user (README): read only, so the tests may share it.
  const user = SAM;
  await signIn(page, user);
  await expect(page.getByRole('table')).toContainText(user.email);
  await expect(page.getByRole('button', { name: 'Edit My Profile' })).toHaveCount(0);
  const nav = page.getByRole('navigation', { name: 'Account pages' });
  await expect(nav.getByRole('link')).toHaveText(['My Profile']);
  await page.getByRole('button', { name: `User menu for ${user.name}` }).click();
  await expect(page.getByRole('menuitem')).toHaveText(['My Profile', 'About', 'Logout']);
  await page.keyboard.press('Escape');
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
