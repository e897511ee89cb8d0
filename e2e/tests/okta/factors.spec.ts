// Okta mode: the Security page's factors are Okta's. The authenticator app's secret and QR come from Okta's
// activation data and a code computed from that secret activates Okta's factor; email is Okta's email factor,
// activated with the code Okta "sent" (read back through the stand-in's test-only endpoint); step-up verifies
// against Okta; removing a factor deletes it in Okta.
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, signInWithOkta, test } from '../../support/okta-fixture.js';
import type { OktaPortal, OktaTestUser } from '../../support/okta.js';
import {
  appSwitch,
  Authenticator,
  confirmAuthenticatorSetup,
  wrongCode,
  emailSection,
  emailSwitch,
  googleSection,
  logout,
  waitForResendWindow,
} from '../security-helpers.js';

/**
 * The Security page's first load in Okta mode: the step-up check, then both factors' details, each asked of the org
 * stand-in; with the cluster project's instances and PostgreSQL on the same 2 cores it has taken over 10 s.
 */
const SECURITY_PAGE_LOAD_MS = 30_000;

// Codes come in 30-second steps and each may be used once.
test.describe.configure({ timeout: 150_000 });

/** The user's factors as Okta holds them: type and status. */
function factorsInOkta(okta: OktaPortal, user: OktaTestUser) {
  return (okta.org.user(user.sub)?.factors ?? []).map((factor) => ({
    factorType: factor.factorType,
    provider: factor.provider,
    status: factor.status,
  }));
}

/** The setup key from the 'Enter a Setup Key' dialog (spaces between groups removed). */
async function readSetupKey(page: Page): Promise<string> {
  await page.getByRole('button', { name: "Can't scan the QR code?" }).click();
  const dialog = page.getByRole('dialog', { name: 'Enter a Setup Key' });
  await expect(dialog).toContainText('Time based');
  const secret = (await dialog.getByLabel('Setup key').innerText()).replace(/\s+/g, '');
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  return secret;
}

/** An API answer's JSON: the spec's answers are JSON text inside a JSON string, parsed twice. */
async function jsonOf(response: { json(): Promise<unknown> }): Promise<Record<string, unknown>> {
  const body = await response.json();
  return (typeof body === 'string' ? JSON.parse(body) : body) as Record<string, unknown>;
}

/**
 * On the Security page: sets up the authenticator app. Checks that the setup key and the QR code's otpauth URI
 * carry the shared secret of Okta's pending factor, and activates it with a code computed from that secret.
 */
async function enrolAuthenticator(page: Page, okta: OktaPortal, user: OktaTestUser): Promise<Authenticator> {
  const enrolled = page.waitForResponse(
    (response) =>
      response.url().endsWith(`/api/multifactor/googleauth/${user.sub}/enroll`) &&
      response.request().method() === 'POST',
  );
  await expect(appSwitch(page)).toBeEnabled({ timeout: SECURITY_PAGE_LOAD_MS });
  await appSwitch(page).click();
  const answer = await enrolled;
  expect(answer.status()).toBe(200);
  // The code drawn, as a holder sees it before looking for the setup key.
  await expect(
    page.getByRole('img', { name: 'QR code to scan with Google Authenticator' }).locator('svg[aria-hidden]'),
  ).toBeVisible();

  const pending = okta.org
    .user(user.sub)
    ?.factors.find((factor) => factor.factorType === 'token:software:totp');
  expect(pending).toMatchObject({ provider: 'GOOGLE', status: 'PENDING_ACTIVATION' });
  const sharedSecret = pending?.sharedSecret ?? '';
  expect(sharedSecret).toMatch(/^[A-Z2-7]+=*$/);
  // What the page draws the QR code from, and what it shows as the setup key: Okta's shared secret.
  const qrLink = new URL(String((await jsonOf(answer)).qrLink));
  expect(qrLink.protocol).toBe('otpauth:');
  expect(qrLink.searchParams.get('secret')).toBe(sharedSecret);
  expect(await readSetupKey(page)).toBe(sharedSecret);

  const app = new Authenticator(sharedSecret);
  await confirmAuthenticatorSetup(page, app, { wrongFirst: true });
  return app;
}

/** The newest usable email code Okta "sent" the user after `since` (ms), read through the test-only endpoint. */
async function emailCodeFromOkta(
  request: APIRequestContext,
  okta: OktaPortal,
  user: OktaTestUser,
  purpose: 'activation' | 'verification',
  since: number,
): Promise<{ code: string; sentAt: string }> {
  let code = { code: '', sentAt: '' };
  await expect(async () => {
    const response = await request.get(`${okta.org.url}/__test/users/${user.sub}/email-codes`);
    expect(response.ok()).toBe(true);
    const codes = (await response.json()) as {
      code: string;
      purpose: string;
      sentAt: string;
      usable: boolean;
    }[];
    const found = codes
      .filter((sent) => sent.purpose === purpose && sent.usable && Date.parse(sent.sentAt) >= since)
      .at(-1);
    expect(found, `an email code (${purpose}) sent to ${user.email}`).toBeDefined();
    code = { code: found?.code ?? '', sentAt: found?.sentAt ?? '' };
  }).toPass({ timeout: 10_000 });
  return code;
}

/**
 * On the Security page: sets up email with the code Okta sent (a wrong code first). Returns when Okta sent it (the
 * portal allows one email send per user every 30 seconds).
 */
async function enrolEmail(
  page: Page,
  request: APIRequestContext,
  okta: OktaPortal,
  user: OktaTestUser,
): Promise<{ date: string }> {
  await expect(emailSwitch(page)).toBeEnabled({ timeout: SECURITY_PAGE_LOAD_MS });
  await emailSwitch(page).click();
  const section = emailSection(page);
  const since = Date.now() - 1000;
  await section.getByRole('button', { name: 'Send Code' }).click();
  await expect(section.getByRole('button', { name: /^Resend \(\d+s\)$/ })).toBeDisabled();
  const { code, sentAt } = await emailCodeFromOkta(request, okta, user, 'activation', since);
  expect(factorsInOkta(okta, user)).toContainEqual({
    factorType: 'email',
    provider: 'OKTA',
    status: 'PENDING_ACTIVATION',
  });
  await section.getByLabel('Verification code').fill(code === '000000' ? '111111' : '000000');
  await section.getByRole('button', { name: 'Verify' }).click();
  await expect(section.getByRole('alert')).toHaveText('Invalid verification code');
  await section.getByLabel('Verification code').fill(code);
  await section.getByRole('button', { name: 'Verify' }).click();
  const enrolled = page.getByRole('region', { name: 'Your Email Factor' });
  await expect(enrolled.getByText('Verified')).toBeVisible();
  return { date: sentAt };
}

test('enrol the authenticator app with a code computed from the shared secret Okta handed out', async ({
  page,
  okta,
  user,
}) => {
  await signInWithOkta(page, user, '/security');
  // A fresh sign-in is the proof a first factor needs in Okta mode: no "Confirm it's you" on the way.
  await enrolAuthenticator(page, okta, user);
  await expect(page.getByRole('dialog', { name: "Confirm it's you" })).toHaveCount(0);
  expect(factorsInOkta(okta, user)).toEqual([
    { factorType: 'token:software:totp', provider: 'GOOGLE', status: 'ACTIVE' },
  ]);
  // The only factor cannot be turned off; a reload shows Okta's factor.
  await expect(appSwitch(page)).toBeDisabled();
  await page.reload();
  await expect(googleSection(page).getByText(/^Added /)).toBeVisible();
  await expect(appSwitch(page)).toBeChecked();
});

test('enrol email with the code Okta sent', async ({ page, request, okta, user }) => {
  await signInWithOkta(page, user, '/security');
  await enrolEmail(page, request, okta, user);
  await expect(emailSection(page)).toContainText(/[a-z0-9]\.\.\.\.[a-z0-9]@example\.org/);
  expect(factorsInOkta(okta, user)).toEqual([{ factorType: 'email', provider: 'OKTA', status: 'ACTIVE' }]);
});

test('a new sign-in must step up, verified by Okta (authenticator app, email); then a removed factor is gone from Okta', async ({
  page,
  browser,
  request,
  okta,
  user,
}) => {
  await signInWithOkta(page, user, '/security');
  const emailSent = await enrolEmail(page, request, okta, user);
  const app = await enrolAuthenticator(page, okta, user);
  expect(factorsInOkta(okta, user)).toHaveLength(2);
  const verifications = () =>
    okta.org
      .requests()
      .filter((sent) => sent.path.startsWith(`/api/v1/users/${user.sub}/factors/`))
      .filter((sent) => sent.path.endsWith('/verify'))
      .map((sent) => sent.status);

  // Another browser's new sign-in (a new Okta access token) has not stepped up: the factors are behind the
  // challenge, passed with the authenticator app's code, checked by Okta.
  const other = await browser.newContext();
  try {
    const second = await other.newPage();
    await signInWithOkta(second, user, '/security');
    await expect(second.getByRole('heading', { name: 'Verify to continue' })).toBeVisible();
    await expect(second.getByText('You will access security information after verification.')).toBeVisible();
    await second.getByRole('button', { name: 'Verify' }).click();
    await expect(
      second.getByRole('heading', { name: 'Select a verification method to continue' }),
    ).toBeVisible();
    await second.getByRole('button', { name: 'Verify with Google Authenticator' }).click();
    await expect(
      second.getByRole('heading', { name: 'Please check your code on Google Authenticator' }),
    ).toBeVisible();
    const input = second.getByLabel('Enter authentication code');
    await input.fill(wrongCode(app.secret));
    await second.getByRole('button', { name: 'Verify' }).click();
    await expect(second.getByRole('alert')).toHaveText('Invalid verification code');
    await input.fill(await app.code());
    await second.getByRole('button', { name: 'Verify' }).click();
    await expect(googleSection(second).getByText(/^Added /)).toBeVisible();
    expect(verifications()).toEqual([403, 200]);
  } finally {
    await other.close();
  }

  // This browser signs in again and steps up by email: Okta sends the code (a verify without passCode).
  await logout(page, user.name);
  await signInWithOkta(page, user, '/security');
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByRole('button', { name: 'Verify with Email' }).click();
  await expect(
    page.getByText(/^An authentication code will be sent to .\.\.\.\..@example\.org\.$/),
  ).toBeVisible();
  await waitForResendWindow(emailSent);
  const since = Date.now() - 1000;
  await page.getByRole('button', { name: 'Send authentication code' }).click();
  await expect(
    page.getByRole('button', { name: /^Authentication code sent to .\.\.\.\..@example\.org$/ }),
  ).toBeDisabled();
  const { code } = await emailCodeFromOkta(request, okta, user, 'verification', since);
  await page.getByLabel('Enter authentication code').fill(code === '000000' ? '111111' : '000000');
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('alert')).toHaveText('Invalid authentication code');
  await page.getByLabel('Enter authentication code').fill(code);
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('region', { name: 'Your Email Factor' })).toBeVisible();
  // The challenge (no passCode), the wrong code, the right one.
  expect(verifications()).toEqual([403, 200, 200, 403, 200]);

  await googleSection(page).getByRole('button', { name: 'remove' }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove your Google Authenticator account?' });
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByText('Google Authenticator was removed.')).toBeVisible();
  await expect(appSwitch(page)).not.toBeChecked();
  expect(factorsInOkta(okta, user)).toEqual([{ factorType: 'email', provider: 'OKTA', status: 'ACTIVE' }]);

  // After a reload the page shows Okta's state.
  await page.reload();
  await expect(page.getByRole('region', { name: 'Your Email Factor' })).toBeVisible();
  await expect(appSwitch(page)).not.toBeChecked();
});
