// The Okta-mode tests' `test`: one Okta org stand-in and one portal in Okta mode per worker (started on first use,
// stopped when the worker ends, whatever the tests did), with a fresh Okta user per test. After each test the org
// must have seen no request or answer outside Okta's published spec, and no process may have crashed; a failing
// test gets every process's output and the org's traffic attached.
import { test as base, expect, type Page } from '@playwright/test';
import { createGuardrails, generateSync } from 'otplib';
import { OktaPortal, type OktaTestUser } from './okta.js';

export const test = base.extend<{ okta: OktaPortal; user: OktaTestUser }, { oktaOfWorker: OktaPortal }>({
  oktaOfWorker: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring pattern
    async ({}, use) => {
      const okta = await OktaPortal.start();
      try {
        await use(okta);
      } finally {
        await okta.stop();
      }
    },
    { scope: 'worker', timeout: 60_000 },
  ],
  okta: async ({ oktaOfWorker }, use, testInfo) => {
    const violationsBefore = oktaOfWorker.org.violations().length;
    await use(oktaOfWorker);
    if (testInfo.status !== testInfo.expectedStatus) {
      await testInfo.attach('okta-mode output', { body: oktaOfWorker.logs(), contentType: 'text/plain' });
    }
    // A shape Okta's spec does not declare, or a call the stand-in does not model, fails the test that made it.
    // Chromium's own GET /favicon.ico on the org's sign-in page is no call of the portal's (a real org serves one).
    const violations = oktaOfWorker.org
      .violations()
      .slice(violationsBefore)
      .filter((violation) => !(violation.kind === 'unsimulated' && violation.path === '/favicon.ico'));
    expect(violations, 'Okta spec violations').toEqual([]);
    expect(oktaOfWorker.unexpectedExits(), 'crashed processes').toEqual([]);
  },
  user: async ({ okta }, use) => {
    await use(okta.createUser());
  },
});

export { expect };

/** Signs in on the Okta org's own sign-in page (the stand-in's form: Username, Password, 'Sign in'). */
export async function signInOnOkta(page: Page, user: { email: string; password: string }): Promise<void> {
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Username').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Opens a portal page while signed out, signs in at the org, and waits to be back on it. */
export async function signInWithOkta(
  page: Page,
  user: { email: string; password: string },
  path = '/profile',
): Promise<void> {
  await page.goto(path);
  await signInOnOkta(page, user);
  await expect(page).toHaveURL(new RegExp(`${path.replace(/\//g, '\\/')}$`));
}

const STEP_SECONDS = 30;
// Okta's Google Authenticator secrets are 10 bytes (16 base32 characters); otplib refuses fewer than 16 by default.
const OKTA_SECRET = createGuardrails({ MIN_SECRET_BYTES: 10 });
const totp = (secret: string, epoch: number) => generateSync({ secret, epoch, guardrails: OKTA_SECRET });

/**
 * The test's authenticator app for Okta's shared secret, with otplib (the stand-in checks with otpauth, so the two
 * implementations check each other). Okta accepts a step once, and the next step too: each code comes from a later
 * step than the last one used, the next step's instead of waiting, and a current-step code never with fewer than
 * 3 s left in its step (as security-helpers' Authenticator, for 10-byte secrets).
 */
export class OktaAuthenticator {
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
      await new Promise((resolve) => setTimeout(resolve, left * 1000 + 100));
    }
  }
}

/** A 6-digit code that is not the code of any nearby step: a guaranteed wrong code. */
export function wrongOktaCode(secret: string): string {
  const now = Math.floor(Date.now() / 1000);
  const near = new Set([-2, -1, 0, 1, 2].map((delta) => totp(secret, now + delta * STEP_SECONDS)));
  for (let n = 0; ; n += 1) {
    const candidate = String(n).padStart(6, '0');
    if (!near.has(candidate)) return candidate;
  }
}
