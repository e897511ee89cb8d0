import { expect, test } from '@playwright/test';
import { collectErrors } from '../support/errors.js';
import { signInOnProvider } from '../support/sign-in.js';
import { createUser } from '../support/users.js';

// Each remote's own origin serves its standalone harness (the remote's `main` entry): it signs in against the
// portal's identity provider and renders the page through the remote's mount(), with no shell.

test('remote-profile alone on http://localhost:3001/: sign in, My Profile without the shell, edit, sign out', async ({
  page,
}) => {
  const user = await createUser({ country: 'DE' });
  const errors = collectErrors(page, 'http://localhost:3001');
  const shellRequests: string[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    // The shell's own code lives on :3000 next to the API; only API and provider calls may go there.
    if (url.port === '3000' && /\.(js|css)$/.test(url.pathname)) shellRequests.push(url.pathname);
  });

  await page.goto('http://localhost:3001/');
  await signInOnProvider(page, user);
  await expect(page).toHaveURL('http://localhost:3001/');

  await expect(page.getByRole('heading', { level: 1, name: 'My Profile' })).toBeVisible();
  const details = page.getByRole('table');
  await expect(details).toContainText(user.email);
  await expect(details).toContainText('Germany');
  const header = page.getByRole('banner');
  await expect(header).toContainText('remote-profile');
  await expect(header).toContainText(`Signed in as ${user.name}`);
  // No shell: no side navigation, no user menu, no footer.
  await expect(page.getByRole('navigation')).toHaveCount(0);
  await expect(page.getByRole('button', { name: /^User menu for/ })).toHaveCount(0);
  await expect(page.getByRole('contentinfo')).toHaveCount(0);

  // The page works against the API from its own origin (CORS, bearer token, ID-token renewal after saving).
  await page.getByRole('button', { name: 'Edit My Profile' }).click();
  await page.getByLabel('Last Name').fill('Standalone');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Your changes are saved.')).toBeVisible();
  await expect(details).toContainText('Standalone');
  await expect(header).toContainText(`Signed in as ${user.givenName} Standalone`);

  await page.reload();
  await expect(page.getByRole('table')).toContainText('Standalone');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  expect(shellRequests).toEqual([]);
  expect(errors).toEqual([]);
});

test("remote-password, remote-security and remote-activity alone on :3002, :3003 and :3004: each shows its page after sign-in, the others by the provider's session", async ({
  page,
}) => {
  const user = await createUser();
  const harnesses = [
    { port: 3002, remote: 'remote-password', heading: 'Password' },
    { port: 3003, remote: 'remote-security', heading: 'Security' },
    { port: 3004, remote: 'remote-activity', heading: 'Devices & activity' },
  ];
  for (const [index, { port, remote, heading }] of harnesses.entries()) {
    const errors = collectErrors(page, `http://localhost:${port}`);
    await page.goto(`http://localhost:${port}/`);
    // The first harness asks for the password; the provider's session then signs the second in on its own.
    if (index === 0) await signInOnProvider(page, user);
    await expect(page).toHaveURL(`http://localhost:${port}/`);
    await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible();
    await expect(page.getByRole('banner')).toContainText(remote);
    await expect(page.getByRole('banner')).toContainText(`Signed in as ${user.name}`);
    await expect(page.getByRole('navigation')).toHaveCount(0);
    if (heading === 'Password') {
      await expect(page.getByRole('button', { name: 'Change Password' })).toBeVisible();
    } else if (heading === 'Devices & activity') {
      // The harness's own session is one of the account's devices, and its sign-in is the newest event.
      await expect(page.getByRole('list', { name: 'Your devices' })).toContainText('This device');
      await expect(
        page.getByRole('list', { name: 'Your activity' }).getByRole('listitem').first(),
      ).toContainText('Signed in');
    } else {
      // A new user has no factor: no challenge, straight to the factors.
      await expect(page.getByRole('switch', { name: 'Verification with email' })).toBeVisible();
    }
    expect(errors).toEqual([]);
  }
});
