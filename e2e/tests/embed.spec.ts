import { expect, test } from '@playwright/test';
import { collectErrors } from '../support/errors.js';
import { signInOnProvider } from '../support/sign-in.js';
import { createUser } from '../support/users.js';
import { emailSection, emailSwitch, mailFor } from './security-helpers.js';

// examples/embed-security: a plain HTML page of another site (no React, no bundler) on http://localhost:3100,
// which signs in with okta-auth-js and mounts the Security remote through the Module Federation runtime.
const EXAMPLE = 'http://localhost:3100';

test.describe.configure({ timeout: 90_000 });

test('a plain page embeds the Security remote: sign in, turn on the email factor, sign out', async ({
  page,
  request,
}) => {
  const user = await createUser();
  // Errors of the embedding page.
  const errors = collectErrors(page, EXAMPLE);
  const scripts: string[] = [];
  // Scripts of the integrator's page only: the provider's sign-in page, met on the way, has its own (passkeys).
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script' && response.frame().url().startsWith(EXAMPLE))
      scripts.push(response.url());
  });

  await page.goto(`${EXAMPLE}/`);
  await signInOnProvider(page, user);
  await expect(page).toHaveURL(`${EXAMPLE}/`);

  // The integrator's page is still theirs; the box holds the remote.
  await expect(page.getByRole('banner')).toContainText('Example Corp');
  await expect(page.getByText(`Signed in as ${user.name}`)).toBeVisible();
  const embedded = page.locator('#security');
  await expect(embedded.getByRole('heading', { level: 1, name: 'Security' })).toBeVisible();
  await expect(
    embedded.getByText(
      "Protect your account with 2-step verification. Each time you sign in to your F5 account, you'll need your password and a verification code.",
    ),
  ).toBeVisible();
  // A new user has no factor: no challenge, straight to the factors. Turning on email uses the token getter, the
  // API base URL, antd's form and the code from the mailbox.
  const section = emailSection(page);
  await expect(emailSwitch(page)).toBeEnabled();
  await emailSwitch(page).click();
  const before = new Date(Date.now() - 1000).toISOString();
  await section.getByRole('button', { name: 'Send Code' }).click();
  // Not anchored at the start: antd's button sometimes keeps its hidden loading icon ("loading") in the name.
  await expect(section.getByRole('button', { name: /Resend \(\d+s\)$/ })).toBeDisabled();
  const message = await mailFor(request, user.email, before);
  await section.getByLabel('Verification code').fill(message.code);
  await section.getByRole('button', { name: 'Verify' }).click();
  const enrolled = page.getByRole('region', { name: 'Your Email Factor' });
  await expect(enrolled).toBeVisible();
  await expect(enrolled.getByText('Verified')).toBeVisible();
  await expect(emailSwitch(page)).toBeChecked();
  // The remote's toast (antd's App context, inside the mount) shows over the page, top right, for 30 s; the user
  // closes it to reach the page's own Sign out button under it.
  const toast = page.getByRole('alert').filter({ hasText: 'Verification with email is set up.' });
  await expect(toast).toBeVisible();
  await toast.getByRole('button', { name: /close/i }).click();
  await expect(toast).toBeHidden();

  // The page has no React of its own: the remote brought its copies, from its own origin.
  expect(scripts.some((url) => url.startsWith('http://localhost:3003/remoteEntry.js'))).toBe(true);
  expect(scripts.filter((url) => url.startsWith('http://localhost:3000/'))).toEqual([]);
  expect(await page.evaluate(() => 'React' in window || 'antd' in window)).toBe(false);

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  expect(errors).toEqual([]);
});

test('the same site embeds the Devices & activity remote alone at /activity/, after its sign-in', async ({
  page,
}) => {
  const user = await createUser();
  const errors = collectErrors(page, EXAMPLE);
  const scripts: string[] = [];
  page.on('response', (response) => {
    if (response.request().resourceType() === 'script' && response.frame().url().startsWith(EXAMPLE))
      scripts.push(response.url());
  });
  await page.goto(`${EXAMPLE}/activity/`);
  await signInOnProvider(page, user);
  // The provider returns to the site's one callback, which sends the browser back to the page it started on.
  await expect(page).toHaveURL(`${EXAMPLE}/activity/`);
  const embedded = page.locator('#activity');
  await expect(embedded.getByRole('heading', { level: 1, name: 'Devices & activity' })).toBeVisible();
  await expect(embedded.getByRole('list', { name: 'Your devices' })).toContainText('This device');
  await expect(embedded.getByRole('list', { name: 'Your activity' })).toContainText(
    'Signed in with your password',
  );
  expect(scripts.some((url) => url.startsWith('http://localhost:3004/remoteEntry.js'))).toBe(true);
  expect(scripts.filter((url) => url.startsWith('http://localhost:3003/'))).toEqual([]);
  expect(scripts.filter((url) => url.startsWith('http://localhost:3000/'))).toEqual([]);
  expect(errors).toEqual([]);
});

test('the example page is served with its Content-Security-Policy', async ({ request }) => {
  const response = await request.get(`${EXAMPLE}/`);
  expect(response.ok()).toBe(true);
  const csp = response.headers()['content-security-policy'] ?? '';
  expect(csp).toContain("script-src 'self' http://localhost:3003 'sha256-");
  expect(csp).toContain('connect-src');
  expect(csp).toContain("style-src 'self' 'unsafe-inline'");
});
