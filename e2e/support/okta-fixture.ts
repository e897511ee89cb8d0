// The Okta-mode tests' `test`: one Okta org stand-in and one portal in Okta mode per worker (started on first use,
// stopped when the worker ends, whatever the tests did), with a fresh Okta user per test. After each test the org
// must have seen no request or answer outside Okta's published spec, and no process may have crashed; a failing
// test gets every process's output and the org's traffic attached.
import { test as base, expect, type Page } from '@playwright/test';
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
    // A whole topology starts here (processes, validators, static hosts): 10-20 s on a quiet machine, and the
    // Okta one once took over 60 s at load 17 (another build and the suite's other workers beside it), a cluster
    // instance alone as long.
    { scope: 'worker', timeout: 300_000 },
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
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await page.getByLabel('Username').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
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
