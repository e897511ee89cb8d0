import { expect, test, type Locator, type Page } from '@playwright/test';
import { expectNoSeriousViolations } from '../support/axe.js';
import { signInNewUser } from '../support/sign-in.js';
import { ageEmailSends } from '../support/database.js';
import {
  appSwitch,
  Authenticator,
  bothFactorsAndAnotherBrowser,
  emailSection,
  emailSwitch,
  enrolAuthenticator,
  googleSection,
  mailFor,
  noticeFor,
} from './security-helpers.js';

// Keyboard only: after the sign-in (on the provider's page) every step is a key press, never a click.

/** Presses Tab (or Shift+Tab) until the target has the focus, as a keyboard user moves through the page. */
async function tabTo(page: Page, target: Locator, { backwards = false, max = 60 } = {}) {
  for (let presses = 0; presses < max; presses += 1) {
    if (await target.evaluate((element) => element === document.activeElement).catch(() => false)) return;
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
  }
  await expect(target, `reached with ${backwards ? 'Shift+Tab' : 'Tab'}`).toBeFocused();
}

const focusInside = (container: Locator) =>
  container.evaluate((element) => element.contains(document.activeElement));

/** Tabs to `trigger`, presses `key` on it, and waits for the dialog `name` to open and hold the focus. */
async function openDialogByKeyboard(page: Page, trigger: Locator, name: string, key = 'Enter') {
  await tabTo(page, trigger);
  await page.keyboard.press(key);
  const dialog = page.getByRole('dialog', { name });
  await expect(dialog).toBeVisible();
  await expect.poll(() => focusInside(dialog)).toBe(true);
  return dialog;
}

test('the skip link is the first Tab stop; the side navigation and the user menu reach every page', async ({
  page,
}) => {
  const user = await signInNewUser(page);
  await expect(page.getByRole('table')).toContainText(user.email);

  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Skip to content' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('main')).toBeFocused();

  const nav = page.getByRole('navigation', { name: 'Account pages' });
  // The layout around the page: the header's links, the side navigation, the footer.
  await expect(page.getByRole('navigation', { name: 'Header links' }).getByRole('link')).not.toHaveCount(0);
  await expect(nav.getByRole('link')).toHaveText([
    'My Profile',
    'Password',
    'Security',
    'Devices & activity',
  ]);
  await expect(page.getByRole('contentinfo')).toContainText(`© ${new Date().getFullYear()}`);
  // The side navigation comes before the main content: Shift+Tab from it reaches the last page's link.
  await page.keyboard.press('Shift+Tab');
  await expect(nav.getByRole('link', { name: 'Devices & activity' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/activity$/);
  await expect(
    page.getByRole('heading', { level: 1, name: 'Devices & activity', exact: true }),
  ).toBeVisible();
  await page.keyboard.press('Shift+Tab');
  await expect(nav.getByRole('link', { name: 'Security' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/security$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Security', exact: true })).toBeVisible();
  await page.keyboard.press('Shift+Tab');
  await expect(nav.getByRole('link', { name: 'Password' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/password$/);
  await expect(page.getByRole('heading', { level: 1, name: 'Password', exact: true })).toBeVisible();
  await page.keyboard.press('Shift+Tab');
  await expect(nav.getByRole('link', { name: 'My Profile' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/profile$/);
  await expect(page.getByRole('heading', { level: 1, name: 'My Profile', exact: true })).toBeVisible();

  // The user menu: Enter opens it on its first entry, the arrow keys move through the entries, Enter picks one.
  const userMenu = page.getByRole('button', { name: `User menu for ${user.name}` });
  await tabTo(page, userMenu, { backwards: true });
  await page.keyboard.press('Enter');
  const menu = page.getByRole('menu');
  await expect(menu).toBeVisible();
  await expect(menu.getByRole('menuitem', { name: 'My Profile' })).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(menu.getByRole('menuitem', { name: 'Password' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/password$/);
  await expect(menu).toBeHidden();

  // Escape closes it again and leaves the focus on its button.
  await tabTo(page, userMenu, { backwards: true });
  await page.keyboard.press('Enter');
  await expect.poll(() => focusInside(menu)).toBe(true);
  await page.keyboard.press('Escape');
  await expect(menu).toBeHidden();
  await expect(userMenu).toBeFocused();
});

test('profile edit and password change with the keyboard', async ({ page }) => {
  // Two flows after one sign-in: about 30 s under the whole suite's load.
  test.setTimeout(90_000);
  const user = await signInNewUser(page);
  await expect(page.getByRole('table')).toContainText(user.email);

  const edit = page.getByRole('button', { name: 'Edit My Profile' });
  await tabTo(page, edit);
  await page.keyboard.press('Enter');
  const lastName = page.getByLabel('Last Name');
  await tabTo(page, lastName);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('Keyboard');
  await tabTo(page, page.getByRole('button', { name: 'Save' }));
  await page.keyboard.press('Enter');
  await expect(page.getByText('Your changes are saved.')).toBeVisible();
  await expect(page.getByRole('table')).toContainText('Keyboard');
  // Back in the view, the focus is where the editing began.
  await expect(edit).toBeFocused();

  const nav = page.getByRole('navigation', { name: 'Account pages' });
  await tabTo(page, nav.getByRole('link', { name: 'Password' }), { backwards: true });
  await page.keyboard.press('Enter');
  await expect(page.getByRole('table')).toContainText(user.email);
  const change = page.getByRole('button', { name: 'Change Password' });
  await tabTo(page, change);
  await page.keyboard.press('Enter');
  await expect(page.getByText(`You are changing your password for: ${user.email}`)).toBeVisible();
  // The form starts in its first field.
  await expect(page.getByLabel('Current Password')).toBeFocused();
  await page.keyboard.type(user.password);
  await tabTo(page, page.getByLabel('New Password'));
  await page.keyboard.type('Tumbling-Down-7Q');
  await tabTo(page, page.getByLabel('Confirm Password'));
  await page.keyboard.type('Tumbling-Down-7Q');
  await tabTo(page, page.getByRole('button', { name: 'Save' }));
  await page.keyboard.press('Enter');
  // The profile's toast may still be up (30 s): the newest toast stacks last.
  await expect(page.getByText('Your changes are saved.').last()).toBeVisible();
  await expect(page.getByLabel('Current Password')).toHaveCount(0);
  await expect(change).toBeFocused();
});

test('enrolment with the keyboard: the setup key dialog, both factors, a confirmation dialog', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const user = await signInNewUser(page, '/security');
  await expect(appSwitch(page)).toBeEnabled();

  // The authenticator app: the switch, the 'Enter a Setup Key' dialog (Escape closes it), the code.
  await tabTo(page, appSwitch(page));
  await page.keyboard.press('Space');
  const trigger = page.getByRole('button', { name: "Can't scan the QR code?" });
  const keyDialog = await openDialogByKeyboard(page, trigger, 'Enter a Setup Key');
  const app = new Authenticator((await keyDialog.getByLabel('Setup key').innerText()).replace(/\s+/g, ''));
  await page.keyboard.press('Escape');
  await expect(keyDialog).toBeHidden();
  await expect(trigger).toBeFocused();
  // Open again and leave with its Close button.
  await page.keyboard.press('Enter');
  await expect(keyDialog).toBeVisible();
  await tabTo(page, keyDialog.getByRole('button', { name: 'Close' }));
  await page.keyboard.press('Enter');
  await expect(keyDialog).toBeHidden();
  await expect(trigger).toBeFocused();
  const google = googleSection(page);
  await tabTo(page, google.getByLabel('Verification code'));
  await page.keyboard.type(await app.code());
  await page.keyboard.press('Enter');
  await expect(google.getByText(/^Added /)).toBeVisible();

  // Email: the switch, Send Code, the code from the mailbox, Enter.
  await expect(emailSwitch(page)).toBeEnabled();
  await tabTo(page, emailSwitch(page), { backwards: true });
  await page.keyboard.press('Space');
  const email = emailSection(page);
  await tabTo(page, email.getByRole('button', { name: 'Send Code' }));
  const before = new Date(Date.now() - 1000).toISOString();
  await page.keyboard.press('Enter');
  const code = email.getByLabel('Verification code');
  await expect(code).toBeVisible();
  const message = await mailFor(request, user.email, before);
  await tabTo(page, code);
  await page.keyboard.type(message.code);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('region', { name: 'Your Email Factor' }).getByText('Verified')).toBeVisible();

  // Two factors: turning email off asks first. Escape keeps it on and returns to the switch; Confirm turns it off.
  await expect(emailSwitch(page)).toBeEnabled();
  await tabTo(page, emailSwitch(page), { backwards: true });
  await page.keyboard.press('Space');
  const turnOff = page.getByRole('dialog', { name: 'Turn off verification with email?' });
  await expect(turnOff).toBeVisible();
  await expect.poll(() => focusInside(turnOff)).toBe(true);
  await page.keyboard.press('Escape');
  await expect(turnOff).toBeHidden();
  await expect(emailSwitch(page)).toBeChecked();
  await expect(emailSwitch(page)).toBeFocused();
  await page.keyboard.press('Space');
  await expect(turnOff).toBeVisible();
  await tabTo(page, turnOff.getByRole('button', { name: 'Confirm' }));
  await page.keyboard.press('Enter');
  await expect(page.getByText('Verification with email is turned off.')).toBeVisible();
  await expect(emailSwitch(page)).not.toBeChecked();
});

test('step-up with the keyboard: each screen takes the focus, Cancel and Back, the email code', async ({
  page,
  request,
  browser,
}) => {
  test.setTimeout(90_000);
  // From here on, only keys in the other browser.
  const { user, context, other } = await bothFactorsAndAnotherBrowser(page, request, browser);
  const start = other.getByRole('heading', { name: 'Verify to continue' });
  await expect(start).toBeVisible();
  await tabTo(other, other.getByRole('button', { name: 'Verify', exact: true }));
  await other.keyboard.press('Enter');

  // After the 0.5 s loading dialog, the selection's heading has the focus.
  const selection = other.getByRole('heading', { name: 'Select a verification method to continue' });
  await expect(selection).toBeFocused();
  await tabTo(other, other.getByRole('button', { name: 'Verify with Google Authenticator' }));
  await other.keyboard.press('Enter');
  // The authenticator screen starts in its code field; Cancel returns to the selection, which takes the focus.
  await expect(other.getByLabel('Enter authentication code')).toBeFocused();
  await tabTo(other, other.getByRole('button', { name: 'Cancel' }));
  await other.keyboard.press('Enter');
  await expect(selection).toBeFocused();
  // Back returns to the start, whose heading takes the focus.
  await tabTo(other, other.getByRole('button', { name: 'Back' }));
  await other.keyboard.press('Enter');
  await expect(start).toBeFocused();

  await tabTo(other, other.getByRole('button', { name: 'Verify', exact: true }));
  await other.keyboard.press('Enter');
  await expect(selection).toBeFocused();
  await tabTo(other, other.getByRole('button', { name: 'Verify with Email' }));
  await other.keyboard.press('Enter');
  await expect(other.getByRole('heading', { name: 'Verify with Email' })).toBeFocused();
  const before = new Date(Date.now() - 1000).toISOString();
  // The enrolment sent a code moments ago; as if that were over 30 seconds back, so this send goes out.
  ageEmailSends(user.sub, 31);
  await tabTo(other, other.getByRole('button', { name: 'Send authentication code' }));
  await other.keyboard.press('Enter');
  // The send button is done; the focus moves on to the code field, and Resend counts down.
  await expect(other.getByRole('button', { name: /^Authentication code sent to / })).toBeDisabled();
  await expect(other.getByRole('button', { name: /^Resend \(\d+s\)$/ })).toBeDisabled();
  const code = other.getByLabel('Enter authentication code');
  await expect(code).toBeFocused();
  const message = await mailFor(request, user.email, before);
  await other.keyboard.type(message.code);
  await other.keyboard.press('Enter');
  await expect(other.getByRole('region', { name: 'Your Email Factor' })).toBeVisible();
  await context.close();
});

test('recovery codes and the password reset with the keyboard: the saved-codes dialog, "Use a recovery code", "Forgot password?"', async ({
  page,
  browser,
  request,
}) => {
  test.setTimeout(120_000);
  const user = await signInNewUser(page, '/security');
  await enrolAuthenticator(page);

  // The codes' dialog: it takes the focus, and Done is reached only once the box is ticked.
  const generate = page.getByRole('button', { name: 'Generate recovery codes' });
  const dialog = await openDialogByKeyboard(page, generate, 'Save your recovery codes');
  const codes = (await dialog.getByRole('list', { name: 'Your recovery codes' }).innerText()).match(
    /[0-9A-Z]{5}-[0-9A-Z]{5}/g,
  );
  expect(codes).toHaveLength(10);
  await tabTo(page, dialog.getByRole('checkbox', { name: 'I have saved my recovery codes' }));
  await page.keyboard.press('Space');
  await tabTo(page, dialog.getByRole('button', { name: 'Done' }));
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();

  // The provider's 2-step step: "Use a recovery code", the code typed, Enter.
  const context = await browser.newContext();
  try {
    const other = await context.newPage();
    await other.goto('/profile');
    await expect(other.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    await tabTo(other, other.getByLabel('Email'));
    await other.keyboard.type(user.email);
    await tabTo(other, other.getByLabel('Password'));
    await other.keyboard.type(user.password);
    await other.keyboard.press('Enter');
    await expect(other.getByRole('heading', { name: '2-step verification' })).toBeVisible();
    await tabTo(other, other.getByRole('button', { name: 'Use a recovery code' }));
    await other.keyboard.press('Enter');
    // The recovery code's field takes the focus.
    await expect(other.getByLabel('Recovery code')).toBeFocused();
    await other.keyboard.type(codes![0]!);
    await other.keyboard.press('Enter');
    await expect(other).toHaveURL(/\/profile$/);
  } finally {
    await context.close();
  }

  // "Forgot password?" from the sign-in page: the link, then the email field has the focus.
  const signedOut = await browser.newContext();
  try {
    const reset = await signedOut.newPage();
    await reset.goto('/profile');
    await expect(reset.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    await tabTo(reset, reset.getByRole('link', { name: 'Forgot password?' }));
    await reset.keyboard.press('Enter');
    await expect(reset.getByRole('heading', { name: 'Reset your password' })).toBeVisible();
    await expectNoSeriousViolations(reset, "the 'Reset your password' page");
    await expect(reset.getByLabel('Email')).toBeFocused();
    await reset.keyboard.type(user.email);
    await reset.keyboard.press('Enter');
    await expect(reset.getByRole('heading', { name: 'Check your email' })).toBeVisible();
    await noticeFor(request, user.email, 'Reset your password');
  } finally {
    await signedOut.close();
  }
});
