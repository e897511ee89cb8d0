// Okta mode: a federated user (the org's federated profile attribute, the portal's OKTA_FEDERATED_ATTRIBUTE) sees
// the profile without editing it, and 'Resource not available for federated users' on Password and Security, as the
// embedded mode's federated user does; the server refuses their changes too, and nothing reaches Okta: the org's
// request log has no write for that user. Unlike embedded mode, Devices & activity is theirs too: its data is the
// org's (issue 22).
import type { Page } from '@playwright/test';
import { expect, signInWithOkta, test } from '../../support/okta-fixture.js';
import { expectNoSeriousViolations } from '../../support/axe.js';
import { OKTA_FEDERATED_ATTRIBUTE } from '../../support/okta.js';

const UNAVAILABLE = 'Resource not available for federated users';

/** A call of the portal's API from the signed-in page, with its access token; the JSON answer parsed (twice). */
async function callFromThePage(page: Page, method: string, path: string, body?: unknown) {
  const answer = await page.evaluate(
    async ({ method, path, body }) => {
      const storage = JSON.parse(localStorage.getItem('okta-token-storage') ?? '{}') as {
        accessToken?: { accessToken?: string };
      };
      const response = await fetch(path, {
        method,
        headers: {
          Authorization: `Bearer ${storage.accessToken?.accessToken ?? ''}`,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json()) as unknown };
    },
    { method, path, body },
  );
  const parsed = typeof answer.body === 'string' ? (JSON.parse(answer.body) as unknown) : answer.body;
  return { status: answer.status, body: parsed };
}

test("a federated user (the org's federated attribute) sees the profile without editing and Devices & activity, and the unavailable message on Password and Security", async ({
  page,
  okta,
}) => {
  const user = okta.createUser({ federated: true });
  const before = okta.org.user(user.sub);
  expect(before?.profile[OKTA_FEDERATED_ATTRIBUTE]).toBe(true);
  expect(before?.provider.type).toBe('OKTA');

  await signInWithOkta(page, user);
  await expect(page.getByRole('table')).toContainText(user.email);
  await expect(page.getByRole('table')).toContainText(user.familyName);
  await expect(page.getByRole('button', { name: 'Edit My Profile' })).toHaveCount(0);
  const nav = page.getByRole('navigation', { name: 'Account pages' });
  await expect(nav.getByRole('link')).toHaveText(['My Profile', 'Devices & activity']);
  await page.getByRole('button', { name: `User menu for ${user.name}` }).click();
  await expect(page.getByRole('menuitem')).toHaveText([
    'My Profile',
    'Devices & activity',
    'About',
    'Logout',
  ]);
  await page.keyboard.press('Escape');
  await expect(page.getByRole('menuitem')).toHaveCount(0);
  await expectNoSeriousViolations(page, "the federated user's profile page in Okta mode");

  // Okta mode: the sessions and the events are the org's, so a federated user of the org has them too.
  await nav.getByRole('link', { name: 'Devices & activity' }).click();
  await expect(page.getByRole('region', { name: 'Devices' }).getByText('This device')).toBeVisible();
  await expect(page.getByRole('region', { name: 'Recent activity' })).toBeVisible();
  await expectNoSeriousViolations(page, "the federated user's Devices & activity page in Okta mode");
  expect(await callFromThePage(page, 'GET', `/api/v1/users/${user.sub}/sessions`)).toMatchObject({
    status: 200,
  });
  await page.goto('/profile');

  // Password and Security are not in the navigation: their addresses still answer with the message.
  await page.goto('/password');
  await expect(page.getByText(UNAVAILABLE)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Change Password' })).toHaveCount(0);
  await expectNoSeriousViolations(page, "the federated user's password page in Okta mode");
  await page.goto('/security');
  await expect(page.getByText(UNAVAILABLE)).toBeVisible();
  await expect(page.getByRole('switch')).toHaveCount(0);
  await expectNoSeriousViolations(page, "the federated user's security page in Okta mode");

  // The server decides too: the flag comes from Okta, and every change is refused before Okta is asked.
  expect(await callFromThePage(page, 'GET', `/api/profile/${user.sub}/isfederated`)).toEqual({
    status: 200,
    body: { isFederated: true },
  });
  expect(
    await callFromThePage(page, 'PUT', `/api/profile/${user.sub}/update`, { lastName: 'Forged' }),
  ).toMatchObject({ status: 403, body: { code: 'federated_user' } });
  expect(
    await callFromThePage(page, 'PUT', `/api/password/${user.sub}/change`, {
      OldPassword: user.password,
      NewPassword: 'Tumbling-Down-7Q',
    }),
  ).toEqual({
    status: 403,
    body: { error: 'Federated users cannot change their password here.', code: 'federated_user' },
  });
  expect(
    await callFromThePage(page, 'POST', `/api/multifactor/googleauth/${user.sub}/enroll`, {}),
  ).toMatchObject({ status: 403, body: { code: 'federated_user' } });

  // Nothing changed in Okta: no write for this user, the user as it was.
  const writes = okta.org
    .requests()
    .filter((request) => request.path.includes(user.sub) && request.method !== 'GET')
    .map((request) => `${request.method} ${request.path} ${request.status}`);
  expect(writes).toEqual([]);
  const after = okta.org.user(user.sub);
  expect(after?.profile).toEqual(before?.profile);
  expect(after?.factors).toEqual([]);
  expect(okta.org.passwordMatches(user.sub, user.password)).toBe(true);
});
