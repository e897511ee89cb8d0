import { expect, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { createGuardrails, generateSync } from 'otplib';
import { expectNoSeriousViolations } from '../support/axe.js';
import { motionsSettled } from '../support/motion.js';
import { signInNewUser, signInOnProvider } from '../support/sign-in.js';

export const PORTAL = 'http://localhost:3000';
const STEP_SECONDS = 30;
// The portal's secrets are 20 bytes, Okta's Google Authenticator secrets 10 (16 base32 characters); otplib refuses
// fewer than 16 by default.
const GUARDRAILS = createGuardrails({ MIN_SECRET_BYTES: 10 });
const totp = (secret: string, epoch: number) => generateSync({ secret, epoch, guardrails: GUARDRAILS });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The test's authenticator app: codes from the secret the 'Enter a Setup Key' dialog showed, computed with
 * otplib (the server uses otpauth, so the two implementations check each other). The server refuses a code of
 * a step it already accepted (replay), so every code comes from a later step than the last one used. It
 * accepts the next step too (±1 window): the next step's code is used instead of waiting up to 30 s, and a
 * current-step code is never used with fewer than 3 s left in its step.
 */
export class Authenticator {
  private lastStep = -1;

  constructor(readonly secret: string) {}

  async code(): Promise<string> {
    for (;;) {
      const now = Date.now() / 1000;
      const current = Math.floor(now / STEP_SECONDS);
      const left = STEP_SECONDS - (now % STEP_SECONDS);
      let step: number | undefined;
      if (this.lastStep < current) step = left >= 3 ? current : current + 1;
      else if (this.lastStep === current) step = current + 1;
      if (step !== undefined) {
        this.lastStep = step;
        return totp(this.secret, step * STEP_SECONDS + 1);
      }
      await sleep(left * 1000 + 100);
    }
  }
}

/** A 6-digit code that is not the current one of any nearby step: a guaranteed wrong code. */
export function wrongCode(secret: string): string {
  const now = Math.floor(Date.now() / 1000);
  const near = new Set([-2, -1, 0, 1, 2].map((delta) => totp(secret, now + delta * STEP_SECONDS)));
  for (let n = 0; ; n += 1) {
    const candidate = String(n).padStart(6, '0');
    if (!near.has(candidate)) return candidate;
  }
}

export interface MailboxMessage {
  to: string;
  subject: string;
  text: string;
  date: string;
}

/** The newest mailbox message that `matches` (found on `origin`'s development mailbox), waiting for it to arrive. */
async function waitForMessage(
  request: APIRequestContext,
  matches: (message: MailboxMessage) => boolean,
  origin = PORTAL,
): Promise<MailboxMessage> {
  let found: MailboxMessage | undefined;
  await expect(async () => {
    const response = await request.get(`${origin}/dev/mailbox/messages`);
    expect(response.ok()).toBe(true);
    found = ((await response.json()) as MailboxMessage[]).find(matches);
    expect(found).toBeDefined();
    // Mail leaves through the outbox after the answer: on a busy machine that can take a while.
  }).toPass({ timeout: 20_000 });
  return found!;
}

/** The newest mailbox message to this address (after `since`, ISO), waiting for it to arrive. */
export async function mailFor(
  request: APIRequestContext,
  email: string,
  since = '1970-01-01T00:00:00.000Z',
  origin = PORTAL,
): Promise<MailboxMessage & { code: string }> {
  // Codes only: notices about the account (a factor turned on, a password changed) go to the same mailbox.
  const found = await waitForMessage(
    request,
    (message) =>
      message.to === email && message.date > since && /Your verification code is \d{6}/.test(message.text),
    origin,
  );
  const code = /Your verification code is (\d{6})/.exec(found.text)?.[1];
  if (!code) throw new Error(`No code in: ${found.text}`);
  return { ...found, code };
}

/** The newest notice about the account with this subject (after `since`, ISO), waiting for it to arrive. */
export function noticeFor(
  request: APIRequestContext,
  email: string,
  subject: string | RegExp,
  since = '1970-01-01T00:00:00.000Z',
  also: (message: MailboxMessage) => boolean = () => true,
  origin = PORTAL,
): Promise<MailboxMessage> {
  return waitForMessage(
    request,
    (message) =>
      message.to === email &&
      message.date > since &&
      (typeof subject === 'string' ? message.subject === subject : subject.test(message.subject)) &&
      also(message),
    origin,
  );
}

/** Waits until the server's 30-second email resend limit has passed since this message. */
export async function waitForResendWindow(message: { date: string }): Promise<void> {
  const wait = new Date(message.date).getTime() + 31_000 - Date.now();
  if (wait > 0) await sleep(wait);
}

/** What an enrolment helper does besides enrolling: axe on each of its screens (`checkA11y`), a wrong code first. */
export interface EnrolOptions {
  wrongFirst?: boolean;
  checkA11y?: boolean;
}

/** Axe on `screen` when the caller asked for it (the enrolments' screens are checked in the journey that shows them). */
async function axeIf(page: Page, options: EnrolOptions, screen: string, include?: string): Promise<void> {
  if (options.checkA11y) await expectNoSeriousViolations(page, screen, include ? { include } : {});
}

/** The setup key from the 'Enter a Setup Key' dialog (spaces between groups removed). */
export async function readSetupKey(page: Page, options: EnrolOptions = {}): Promise<string> {
  await page.getByRole('button', { name: "Can't scan the QR code?" }).click();
  const dialog = page.getByRole('dialog', { name: 'Enter a Setup Key' });
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText('Time based');
  await axeIf(page, options, "the 'Enter a Setup Key' dialog", '[role=dialog]');
  const secret = (await dialog.getByLabel('Setup key').innerText()).replace(/\s+/g, '');
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  // With motion on (account-protection.spec) the dialog zooms in; a press during the zoom can land where Close no
  // longer is once the release comes, and the click is lost (the dialog stayed open in one full run).
  await motionsSettled(page);
  await dialog.getByRole('button', { name: 'Close' }).click();
  await expect(dialog).toBeHidden();
  return secret;
}

export const emailSwitch = (page: Page) => page.getByRole('switch', { name: 'Verification with email' });
export const appSwitch = (page: Page) =>
  page.getByRole('switch', { name: 'Verification with Authenticator app' });
export const googleSection = (page: Page) => page.getByRole('region', { name: 'Google Authenticator' });
export const emailSection = (page: Page) => page.getByRole('region', { name: /^(Email|Your Email Factor)$/ });

/** On the factors page: sets up the authenticator app through the setup key. Wrong code first if asked. */
export async function enrolAuthenticator(page: Page, options: EnrolOptions = {}): Promise<Authenticator> {
  await expect(appSwitch(page)).toBeEnabled();
  await appSwitch(page).click();
  await expect(page.getByRole('link', { name: 'Google Authenticator on the App Store' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Google Authenticator on Google Play' })).toBeVisible();
  await expect(
    page.getByRole('img', { name: 'QR code to scan with Google Authenticator' }).locator('svg[aria-hidden]'),
  ).toBeVisible();
  await axeIf(page, options, 'the authenticator app enrolment with its QR code');
  const app = new Authenticator(await readSetupKey(page, options));
  await confirmAuthenticatorSetup(page, app, options);
  return app;
}

/** The enrolment's last step: the app's code (a wrong one first if asked) sets the authenticator app up. */
export async function confirmAuthenticatorSetup(
  page: Page,
  app: Authenticator,
  options: EnrolOptions = {},
): Promise<void> {
  const section = googleSection(page);
  if (options.wrongFirst) {
    await section.getByLabel('Verification code').fill(wrongCode(app.secret));
    await section.getByRole('button', { name: 'Verify' }).click();
    await expect(section.getByRole('alert')).toHaveText('Not a correct verification code');
    await axeIf(page, options, 'the authenticator app enrolment with a wrong code');
  }
  await section.getByLabel('Verification code').fill(await app.code());
  await section.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByText('Google Authenticator is set up.')).toBeVisible();
  await expect(section.getByText(/^Added [A-Z][a-z]{2} \d{1,2}, \d{4}$/)).toBeVisible();
}

/** On the factors page: sets up email with the code from the mailbox. Wrong code first if asked. */
export async function enrolEmail(
  page: Page,
  request: APIRequestContext,
  email: string,
  options: EnrolOptions = {},
): Promise<MailboxMessage> {
  await expect(emailSwitch(page)).toBeEnabled();
  await emailSwitch(page).click();
  const section = emailSection(page);
  await expect(section.getByRole('button', { name: 'Send Code' })).toBeVisible();
  await axeIf(page, options, 'the email enrolment (step 1)');
  const before = new Date(Date.now() - 1000).toISOString();
  await section.getByRole('button', { name: 'Send Code' }).click();
  await expect(section.getByRole('button', { name: /^Resend \(\d+s\)$/ })).toBeDisabled();
  const message = await mailFor(request, email, before);
  if (options.wrongFirst) {
    await section.getByLabel('Verification code').fill(message.code === '000000' ? '111111' : '000000');
    await section.getByRole('button', { name: 'Verify' }).click();
    await expect(section.getByRole('alert')).toHaveText('Invalid verification code');
    await axeIf(page, options, 'the email enrolment (step 2, wrong code)');
  }
  await section.getByLabel('Verification code').fill(message.code);
  await section.getByRole('button', { name: 'Verify' }).click();
  await expect(page.getByRole('region', { name: 'Your Email Factor' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Your Email Factor' }).getByText('Verified')).toBeVisible();
  return message;
}

/** Password, then the provider's 2-step page with a code; back on `path`. */
export async function signInWithCode(
  page: Page,
  user: { email: string; password: string },
  code: () => Promise<string>,
  path = '/profile',
  origin = '',
): Promise<void> {
  await page.goto(`${origin}${path}`);
  await signInOnProvider(page, user);
  await expect(page.getByRole('heading', { name: '2-step verification' })).toBeVisible();
  await page.getByLabel('Verification code').fill(await code());
  await page.getByRole('button', { name: 'Verify' }).click();
  await expect(page).toHaveURL(new RegExp(`${path.replace(/\//g, '\\/')}$`));
}

/**
 * A new user with both factors (email, then the authenticator app) on `page`, and another browser's session of
 * theirs, signed in with a code on /security: it must pass step-up on its own. The caller closes `context`.
 */
export async function bothFactorsAndAnotherBrowser(page: Page, request: APIRequestContext, browser: Browser) {
  const user = await signInNewUser(page, '/security');
  await enrolEmail(page, request, user.email);
  const app = await enrolAuthenticator(page);
  const context = await browser.newContext();
  const other = await context.newPage();
  await signInWithCode(other, user, () => app.code(), '/security');
  return { user, app, context, other };
}

/**
 * Logout from the header's user menu, whatever toasts are showing: they start below the header and the open menu
 * stands in front of them (shared-ui's TOAST_TOP_PX, the shell's TopBar), so nothing waits for a toast to go.
 * With motion on (account-protection.spec), the menu slides in: it sits still in its first, shrunk frame long
 * enough for Playwright to call it stable on a busy machine, then moves between the press and the release, and the
 * click is lost (the menu stayed open, Logout unpressed). So the click waits for the menu to settle.
 */
export async function logout(page: Page, userName: string): Promise<void> {
  await page.getByRole('button', { name: `User menu for ${userName}` }).click();
  await expect(page.getByRole('menuitem', { name: 'Logout' })).toBeVisible();
  await motionsSettled(page);
  await page.getByRole('menuitem', { name: 'Logout' }).click();
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
}
