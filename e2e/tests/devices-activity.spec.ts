import { expect, test, type APIRequestContext, type Page } from '@playwright/test';
import { expectNoSeriousViolations } from '../support/axe.js';
import { accessTokenOf, signIn, signInOnProvider } from '../support/sign-in.js';
import { createUser } from '../support/users.js';
import {
  PORTAL,
  emailSection,
  enrolAuthenticator,
  enrolEmail,
  noticeFor,
  signInWithCode,
} from './security-helpers.js';

// Devices & activity (issue 22), the fourth remote on its own origin (:3004): each browser below signs in with a
// User-Agent of its own, so the Devices list can tell them apart as the holder would.
const FIREFOX_ON_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:135.0) Gecko/20100101 Firefox/135.0';
const SAFARI_ON_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.3 Mobile/15E148 Safari/604.1';

const devicesList = (page: Page) => page.getByRole('list', { name: 'Your devices' });
const activityList = (page: Page) => page.getByRole('list', { name: 'Your activity' });

/** What the API answers this token on the account's own activity: 200 while its session lives, 401 after. */
async function activityStatus(request: APIRequestContext, sub: string, token: string): Promise<number> {
  const response = await request.get(`${PORTAL}/api/v1/users/${sub}/activity`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  return response.status();
}

test('Devices lists each browser with "This device" first; sign out one under step-up and all others by keyboard; Activity shows what happened with its method', async ({
  page,
  browser,
  request,
}) => {
  const user = await createUser();

  // The new remote loads from its own origin, and while that origin is blocked the page says so, contained.
  await page.route('http://localhost:3004/**', (route) => route.abort('blockedbyclient'));
  await signIn(page, user, '/activity');
  await expect(
    page.getByRole('heading', { level: 1, name: 'Devices & activity could not be loaded' }),
  ).toBeVisible();
  await expect(page.getByRole('navigation', { name: 'Account pages' })).toBeVisible();
  await page.unroute('http://localhost:3004/**');
  const fromItsOrigin = page.waitForRequest('http://localhost:3004/remoteEntry.js');
  await page.getByRole('button', { name: 'Retry' }).click();
  await fromItsOrigin;
  await expect(
    page.getByRole('heading', { level: 1, name: 'Devices & activity', exact: true }),
  ).toBeVisible();
  await expect(devicesList(page).getByRole('listitem')).toHaveCount(1);
  await expect(page.getByText('You are not signed in on any other device.')).toBeVisible();

  // A 2-step method added here; this browser holds the step-up grant its enrolment gave.
  await page.goto('/security');
  const app = await enrolAuthenticator(page);

  // Safari on an iPhone, then Firefox on Windows (a wrong password first), each with the password and a code.
  // Neither holds a step-up grant.
  const firefoxContext = await browser.newContext({ userAgent: FIREFOX_ON_WINDOWS });
  const safariContext = await browser.newContext({ userAgent: SAFARI_ON_IPHONE });
  try {
    const safari = await safariContext.newPage();
    await signInWithCode(safari, user, () => app.code(), '/profile');
    const firefox = await firefoxContext.newPage();
    await firefox.goto('/activity');
    await signInOnProvider(firefox, { email: user.email, password: `${user.password}-wrong` });
    await expect(firefox.getByRole('alert')).toBeVisible();
    await signInWithCode(firefox, user, () => app.code(), '/activity');
    const safariToken = await accessTokenOf(safari);
    const chromeToken = await accessTokenOf(page);

    // Firefox's own session first, marked; the two others with their browser, system and kind of device.
    const rows = devicesList(firefox).getByRole('listitem');
    await expect(rows).toHaveCount(3);
    await expect(rows.first()).toContainText('Firefox on Windows');
    await expect(rows.first()).toContainText('This device');
    await expect(rows.first()).toContainText('Desktop');
    await expect(devicesList(firefox).getByText('This device')).toHaveCount(1);
    await expect(rows.filter({ hasText: 'Safari on iOS' })).toContainText('Mobile');
    await expect(firefox.getByRole('button', { name: 'Sign out Firefox on Windows' })).toHaveCount(0);
    await expectNoSeriousViolations(firefox, 'Devices & activity with three devices');

    // Sign out the phone: step-up first (this browser has not verified), then the list without it.
    await firefox.getByRole('button', { name: 'Sign out Safari on iOS' }).click();
    await firefox.getByRole('button', { name: 'Verify' }).click();
    await firefox.getByLabel('Enter authentication code').fill(await app.code());
    await firefox.getByRole('button', { name: 'Verify' }).click();
    await expect(firefox.getByText('Safari on iOS was signed out.')).toBeVisible();
    await expect(rows).toHaveCount(2);
    // Its very next call is refused, and its page goes back to the sign-in.
    expect(await activityStatus(request, user.sub, safariToken)).toBe(401);
    await safari.reload();
    await expect(safari.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();

    // The holder's record, newest first (read again after the sign-out): each sign-in with its method, the wrong
    // password, the app, the sign-out.
    const events = activityList(firefox);
    await expect(events.getByRole('listitem').first()).toContainText('Sessions signed out: another device');
    await expect(events).toContainText('Signed in with your password and a code');
    await expect(events).toContainText('Failed sign-in: wrong password');
    await expect(events).toContainText('2-step method added: Authenticator app');
    await expect(events).toContainText('Signed in with your password');
    await expect(events.getByRole('listitem').filter({ hasText: 'Failed sign-in' })).toContainText(
      'Firefox · Windows',
    );

    // "Sign out of all other devices" by keyboard alone: Chrome's session ends, Firefox stays.
    const signOutOthers = firefox.getByRole('button', { name: 'Sign out of all other devices' });
    await signOutOthers.focus();
    await firefox.keyboard.press('Enter');
    const confirm = firefox.getByRole('dialog', { name: 'Sign out of all other devices?' });
    await expect(confirm).toBeVisible();
    await expectNoSeriousViolations(firefox, 'the "Sign out of all other devices?" dialog', {
      include: '[role=dialog]',
    });
    await confirm.getByRole('button', { name: 'Sign out of all other devices' }).press('Enter');
    await expect(firefox.getByText('Your other devices were signed out.')).toBeFocused();
    await expect(rows).toHaveCount(1);
    expect(await activityStatus(request, user.sub, chromeToken)).toBe(401);
    expect(await activityStatus(request, user.sub, await accessTokenOf(firefox))).toBe(200);
  } finally {
    await firefoxContext.close();
    await safariContext.close();
  }
});

test('"This wasn\'t me" signs out every session, then the sign-in opens with the preferred method and leads to the Password page', async ({
  page,
  browser,
  request,
}) => {
  const user = await createUser();
  await signIn(page, user, '/security');
  await enrolEmail(page, request, user.email);
  const app = await enrolAuthenticator(page);
  // Email is the holder's default: the sign-in and the step-up open with it.
  await emailSection(page).getByRole('button', { name: 'Use by default' }).click();
  await expect(emailSection(page).getByText('Default', { exact: true })).toBeVisible();

  // Someone else's browser signs in with the password and a code.
  const otherContext = await browser.newContext({ userAgent: FIREFOX_ON_WINDOWS });
  try {
    const other = await otherContext.newPage();
    await other.goto('/profile');
    await signInOnProvider(other, user);
    await expect(other.getByRole('heading', { name: '2-step verification' })).toBeVisible();
    // The preferred method leads the provider's 2-step page.
    await expect(other.getByRole('button', { name: 'Send code by email' })).toBeVisible();
    await other.getByLabel('Verification code').fill(await app.code());
    await other.getByRole('button', { name: 'Verify' }).click();
    await expect(other).toHaveURL(/\/profile$/);
    const otherToken = await accessTokenOf(other);

    await page.goto('/activity');
    const sessionsBefore = devicesList(page).getByRole('listitem');
    await expect(sessionsBefore).toHaveCount(2);
    const theirSignIn = activityList(page)
      .getByRole('listitem')
      .filter({ hasText: 'Signed in with your password and a code' })
      .filter({ hasText: 'Firefox · Windows' });
    await theirSignIn.getByRole('button', { name: /^This wasn't me: / }).click();
    const dialog = page.getByRole('dialog', { name: "This wasn't you?" });
    await expect(dialog).toContainText('this one included');
    await expectNoSeriousViolations(page, 'the "This wasn\'t you?" dialog', { include: '[role=dialog]' });
    await dialog.getByRole('button', { name: 'Sign out everywhere' }).click();

    // Every session ended, this one too: the sign-in comes back, and after it the Password page.
    await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    expect(await activityStatus(request, user.sub, otherToken)).toBe(401);
    await signInOnProvider(page, user);
    await expect(page.getByRole('button', { name: 'Send code by email' })).toBeVisible();
    await page.getByLabel('Verification code').fill(await app.code());
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page).toHaveURL(/\/password$/);
    await expect(page.getByRole('heading', { level: 1, name: 'Password', exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Change Password' })).toBeVisible();
  } finally {
    await otherContext.close();
  }
});

test("the mail's \"This wasn't me\" link removes a phisher's authenticator without signing in, signs everyone out, and works once", async ({
  page,
  browser,
  request,
}) => {
  const user = await createUser();
  const since = new Date(Date.now() - 1000).toISOString();
  // Someone with the password sets up their own authenticator app.
  const phisherContext = await browser.newContext({ userAgent: FIREFOX_ON_WINDOWS });
  try {
    const phisher = await phisherContext.newPage();
    await signIn(phisher, user, '/security');
    await enrolAuthenticator(phisher);

    // The holder, signed in nowhere, follows the link of the notice; a preview of the page changes nothing.
    const notice = await noticeFor(request, user.email, /is now on for your F5 account$/, since);
    const link = /http:\/\/localhost:3000\/not-me\?token=[\w-]+/.exec(notice.text)?.[0];
    expect(link).toBeDefined();
    await page.goto(link!);
    await expect(page.getByRole('heading', { name: "Remove a 2-step method you didn't add" })).toBeVisible();
    await phisher.reload();
    await expect(phisher.getByRole('heading', { level: 1, name: 'Security', exact: true })).toBeVisible();
    await expectNoSeriousViolations(page, 'the "This wasn\'t me" link\'s page');
    await page.getByRole('button', { name: 'Remove it and sign out everywhere' }).click();
    await expect(page.getByRole('heading', { name: 'Now reset your password' })).toBeVisible();
    await expect(page.getByRole('link', { name: 'Reset your password' })).toBeVisible();
    await phisher.reload();
    await expect(phisher.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
    await noticeFor(request, user.email, /was removed from your F5 account$/, since);

    // The method is gone: the password alone signs in again. The link does not work twice.
    await signIn(page, user, '/profile');
    await page.goto(link!);
    await expect(page.getByRole('heading', { name: 'This link can no longer be used' })).toBeVisible();
  } finally {
    await phisherContext.close();
  }
});
