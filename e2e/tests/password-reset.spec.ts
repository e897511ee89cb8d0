import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { expectNoSeriousViolations } from '../support/axe.js';
import { REPO_ROOT } from '../support/paths.js';
import { startPortal } from '../support/portal-process.js';
import { signInNewUser, signInOnProvider } from '../support/sign-in.js';
import { createUser, NEW_PASSWORD, SAM } from '../support/users.js';
import { enrolAuthenticator, logout, noticeFor } from './security-helpers.js';

// "Forgot password?" on the provider's sign-in page (issue 20): the same answer for any email, a link that works
// once, a new password under the shared policy, every session ended, a lockout lifted.

const CHECK_EMAIL = (email: string) =>
  `If an account uses ${email}, a link to reset its password is on its way. The link works once, for 30 minutes.`;
const CHANGED = 'Your password has been changed. Sign in with your new password.';

/** From the provider's sign-in page: asks for a reset link for `email` and checks the answer. */
async function askForLink(page: Page, email: string, origin = ''): Promise<string> {
  const since = new Date(Date.now() - 1000).toISOString();
  await page.goto(`${origin}/profile`);
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await expect(page.getByRole('heading', { name: 'Reset your password' })).toBeVisible();
  await page.getByLabel('Email').fill(email);
  await page.getByRole('button', { name: 'Send reset link' }).click();
  await expect(page.getByRole('heading', { name: 'Check your email' })).toBeVisible();
  await expect(page.getByText(CHECK_EMAIL(email))).toBeVisible();
  return since;
}

/** The link of the newest "Reset your password" mail to `email` after `since`, and that mail's date. */
async function resetMail(request: APIRequestContext, email: string, since: string, origin?: string) {
  const mail = await noticeFor(request, email, 'Reset your password', since, () => true, origin);
  const link = /https?:\/\/\S+\/reset-password\/link\?token=[\w-]+/.exec(mail.text)?.[0];
  if (!link) throw new Error(`No reset link in: ${mail.text}`);
  return { link, date: mail.date };
}

async function resetLink(request: APIRequestContext, email: string, since: string): Promise<string> {
  return (await resetMail(request, email, since)).link;
}

async function chooseNewPassword(page: Page, password: string) {
  await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
  // The token left the address once the page read it.
  expect(page.url()).not.toContain('token=');
  await page.getByLabel('New Password').fill(password);
  await page.getByLabel('Confirm Password').fill(password);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText(CHANGED)).toBeVisible();
}

test('forgot password: the same answer for any email; the link works once, sets a new password, and signs out every browser', async ({
  page,
  request,
  browser,
}) => {
  test.setTimeout(150_000);
  // Another browser is signed in before the reset: it must be signed out by it.
  const other = await browser.newContext();
  try {
    const signedIn = await other.newPage();
    const user = await signInNewUser(signedIn, '/profile');
    await expect(signedIn.getByRole('table')).toContainText(user.email);

    await page.goto('/profile');
    // The shell redirects to the provider: check the page that the redirect lands on, not the one it leaves.
    await expect(page.getByRole('link', { name: 'Forgot password?' })).toBeVisible();
    await expectNoSeriousViolations(page, 'the provider sign-in page with "Forgot password?"');
    // Nobody uses this address: the same page.
    await askForLink(page, `nobody-${Date.now()}@example.org`);
    await expectNoSeriousViolations(page, "the 'Check your email' page");
    // A federated account: the same page, and a mail that sends it to its company's identity provider.
    const federatedSince = await askForLink(page, SAM.email);
    const federatedMail = await noticeFor(request, SAM.email, 'Reset your password', federatedSince);
    expect(federatedMail.text).toContain("reset it with your company's identity provider instead");
    expect(federatedMail.text).not.toContain('token=');

    const since = await askForLink(page, user.email);
    const link = await resetLink(request, user.email, since);
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();
    await expectNoSeriousViolations(page, "the 'Choose a new password' page");
    // The Password page's live checklist, from the same shared policy.
    await page.getByLabel('New Password').fill('short');
    await expect(page.getByRole('list', { name: 'Password rules' })).toBeVisible();
    const newPassword = NEW_PASSWORD;
    await chooseNewPassword(page, newPassword);
    await expectNoSeriousViolations(page, 'the sign-in page after a reset');
    await signInOnProvider(page, { email: user.email, password: newPassword });
    await expect(page).toHaveURL(/\/profile$/);
    await expect(
      await noticeFor(request, user.email, 'Your F5 account password was reset', since),
    ).toBeTruthy();

    // The link is spent.
    const again = await browser.newContext();
    try {
      const reused = await again.newPage();
      await reused.goto(link);
      await expect(
        reused.getByRole('heading', { name: 'This link has expired or was already used' }),
      ).toBeVisible();
      await expect(reused.getByRole('link', { name: 'Ask for a new link' })).toBeVisible();
      await expectNoSeriousViolations(reused, 'the expired link page');
    } finally {
      await again.close();
    }

    // The browser signed in before the reset: its next call is refused, and the portal asks it to sign in.
    await signedIn
      .getByRole('navigation', { name: 'Account pages' })
      .getByRole('link', { name: 'Security' })
      .click();
    await expect(signedIn.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  } finally {
    await other.close();
  }
});

test('forgot password with the authenticator app on: the code comes first; a locked-out account gets back in', async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  const user = await signInNewUser(page, '/security');
  const app = await enrolAuthenticator(page);
  await logout(page, user.name);

  // Locked out by wrong passwords.
  await page.goto('/profile');
  for (let attempt = 0; attempt < 10; attempt += 1) {
    await signInOnProvider(page, { email: user.email, password: `Wrong-${attempt}-Password` });
    await expect(page.getByRole('alert')).toBeVisible();
  }
  await signInOnProvider(page, user);
  await expect(page.getByRole('alert')).toContainText('Too many failed sign-in attempts');

  // A newer link voids the older one.
  const first = await resetMail(request, user.email, await askForLink(page, user.email));
  const older = first.link;
  await askForLink(page, user.email);
  // The mail goes out up to a second after the answer: the newer one is the one after the first mail.
  const newer = await resetLink(request, user.email, first.date);
  expect(newer).not.toBe(older);
  await page.goto(older);
  await expect(
    page.getByRole('heading', { name: 'This link has expired or was already used' }),
  ).toBeVisible();

  await page.goto(newer);
  await expect(page.getByRole('heading', { name: '2-step verification' })).toBeVisible();
  await expectNoSeriousViolations(page, "the reset's code step");
  await expect(
    page.getByText('Your account uses 2-step verification: enter a code before you choose a new password.'),
  ).toBeVisible();
  await page.getByLabel('Verification code').fill(await app.code());
  await page.getByRole('button', { name: 'Verify' }).click();
  const newPassword = NEW_PASSWORD;
  await chooseNewPassword(page, newPassword);

  // The lockout is lifted: the new password signs in, then the second step.
  await signInOnProvider(page, { email: user.email, password: newPassword });
  await expect(page.getByRole('heading', { name: '2-step verification' })).toBeVisible();
  await page.getByLabel('Verification code').fill(await app.code());
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(/\/profile$/);
});

test("a link 30 minutes old on the server's clock has expired: the page says so and asks for a new one", async ({
  page,
  request,
}) => {
  // A server of this test's own whose clock the test moves (support/moved-clock.mjs): the suite's server keeps
  // real time for every other test.
  const stepMs = 30 * 60 * 1000 + 1000;
  const clockFile = path.join(tmpdir(), `moved-clock-${randomUUID()}`);
  const portal = await startPortal({ MOVED_CLOCK_STEP_MS: String(stepMs), MOVED_CLOCK_FILE: clockFile }, [
    '--import',
    path.join(REPO_ROOT, 'e2e', 'support', 'moved-clock.mjs'),
  ]);
  try {
    const user = await createUser({ dataDir: portal.dataDir });
    const since = await askForLink(page, user.email, portal.origin);
    const { link } = await resetMail(request, user.email, since, portal.origin);
    expect(link.startsWith(`${portal.origin}/`)).toBe(true);
    // Before the move, the link works (opening it uses nothing up): what follows is the clock's doing.
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible();

    portal.child.kill('SIGUSR2');
    await expect.poll(() => readFileSync(clockFile, { encoding: 'utf8', flag: 'a+' })).toBe(String(stepMs));
    await page.goto(link);
    await expect(
      page.getByRole('heading', { name: 'This link has expired or was already used' }),
    ).toBeVisible();
    await page.getByRole('link', { name: 'Ask for a new link' }).click();
    await expect(page.getByRole('heading', { name: 'Reset your password' })).toBeVisible();
  } finally {
    await portal.stop();
    rmSync(clockFile, { force: true });
  }
});
