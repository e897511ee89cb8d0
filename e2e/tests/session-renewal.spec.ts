// When the server ends the grant of the page's tokens but keeps its provider session (a password or 2-step change
// made in this browser: issue 18, item 2), the page renews silently with its session cookie (prompt=none in a hidden
// iframe), sends the refused call once more, and the holder notices nothing; a copied refresh token, which has no
// cookie, stays dead.
import { expect, test, type APIRequestContext, type Page, type Request } from '@playwright/test';
import { NEW_PASSWORD, createUser } from '../support/users.js';
import { signIn } from '../support/sign-in.js';
import { fillPasswordForm, openPasswordChange } from './password-helpers.js';
import { PORTAL } from './security-helpers.js';

const PROVIDER = `${PORTAL}/oauth2/default`;

/** The refresh token the shell keeps (okta-auth-js token storage in localStorage). */
async function storedRefreshToken(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const storage = JSON.parse(localStorage.getItem('okta-token-storage') ?? '{}') as {
      refreshToken?: { refreshToken?: string };
    };
    return storage.refreshToken?.refreshToken;
  });
}

/** The portal's client id, from its settings (JSON text holding JSON, the spec's answer shape). */
async function clientIdOf(request: APIRequestContext): Promise<string> {
  let parsed: unknown = await (await request.get(`${PORTAL}/api/clientConfiguration/getSettings`)).text();
  while (typeof parsed === 'string') parsed = JSON.parse(parsed);
  return (parsed as { ClientId: string }).ClientId;
}

/**
 * Watches the signed-in page from now on: what its top frame navigates to, the silent sign-ins (authorize with
 * prompt=none), and a marker on window that a reload would drop.
 */
async function watchPage(page: Page) {
  const topNavigations: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) topNavigations.push(frame.url());
  });
  const silentSignIns: Request[] = [];
  page.on('request', (sent) => {
    const url = new URL(sent.url());
    if (url.pathname.endsWith('/v1/authorize') && url.searchParams.get('prompt') === 'none') {
      silentSignIns.push(sent);
    }
  });
  await page.evaluate(() => Object.assign(window, { e2eNoReload: 'still here' }));
  const refreshTokenBefore = await storedRefreshToken(page);
  expect(refreshTokenBefore).toBeTruthy();

  return {
    refreshTokenBefore: refreshTokenBefore!,
    /** Renewed silently, in a hidden iframe: a new refresh token, and the top frame never left the portal's pages. */
    async expectRenewedUnseen() {
      expect(silentSignIns.length).toBeGreaterThanOrEqual(1);
      expect(silentSignIns.every((sent) => sent.frame() !== page.mainFrame())).toBe(true);
      await expect.poll(() => storedRefreshToken(page)).not.toBe(refreshTokenBefore);
      expect(await page.evaluate(() => (window as { e2eNoReload?: string }).e2eNoReload)).toBe('still here');
      // Only the portal's in-page moves (history.pushState): no sign-in page, no return route, no reload.
      const pageAddresses = new Set([`${PORTAL}/password`, `${PORTAL}/profile`]);
      expect(topNavigations.filter((url) => !pageAddresses.has(url))).toEqual([]);
      await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toHaveCount(0);
    },
  };
}

async function openMyProfile(page: Page) {
  await page
    .getByRole('navigation', { name: 'Account pages' })
    .getByRole('link', { name: 'My Profile' })
    .click();
}

/** Edit and save the last name on My Profile: a call that needs a live token. */
async function saveLastName(page: Page, lastName: string) {
  await page.getByRole('button', { name: 'Edit My Profile' }).click();
  await page.getByLabel('Last Name').fill(lastName);
  const saved = page.waitForResponse(
    (response) =>
      response.url().includes('/api/profile/') && response.request().method() === 'PUT' && response.ok(),
  );
  await page.getByRole('button', { name: 'Save' }).click();
  await saved;
  await expect(page.getByRole('table')).toContainText(lastName);
}

test('a browser stays signed in across a password change made in it, with no visible sign-in', async ({
  page,
  request,
}) => {
  const user = await createUser();
  await signIn(page, user, '/password');
  const watched = await watchPage(page);

  await openPasswordChange(page, user.email);
  await fillPasswordForm(page, user.password, NEW_PASSWORD);
  const answer = page.waitForResponse(
    (response) =>
      response.url().endsWith(`/api/password/${user.sub}/change`) && response.request().method() === 'PUT',
  );
  await page.getByRole('button', { name: 'Save' }).click();
  expect((await answer).status()).toBe(200);
  const toast = page.getByText('Your changes are saved.');
  await expect(toast).toBeVisible();

  // The next call (My Profile's save; the page itself shows the ID token's claims) is refused with the ended
  // grant, renewed silently, and sent again; the password change's toast is still there.
  await openMyProfile(page);
  await saveLastName(page, 'Renewed');
  // The password change's toast and the profile save's, side by side.
  await expect(toast).toHaveCount(2);
  await watched.expectRenewedUnseen();

  // The copied refresh token has no session cookie to renew with: the change ended it.
  const replay = await request.post(`${PROVIDER}/v1/token`, {
    form: {
      grant_type: 'refresh_token',
      refresh_token: watched.refreshTokenBefore,
      client_id: await clientIdOf(request),
    },
  });
  expect(replay.status()).toBe(400);
  expect(((await replay.json()) as { error?: string }).error).toBe('invalid_grant');
});

test("the page renews silently when its grant ends under it and only the provider's session is left", async ({
  page,
  request,
}) => {
  const user = await createUser();
  await signIn(page, user, '/password');
  const watched = await watchPage(page);

  // Revoking the refresh token ends its grant (and so the page's access token), as a password change does; the
  // browser's provider session lives on.
  const revoked = await request.post(`${PROVIDER}/v1/revoke`, {
    form: {
      token: watched.refreshTokenBefore,
      token_type_hint: 'refresh_token',
      client_id: await clientIdOf(request),
    },
  });
  expect(revoked.status()).toBe(200);

  await openMyProfile(page);
  await saveLastName(page, 'Renewed');
  await watched.expectRenewedUnseen();
  // And the renewed session goes on: a second save needs no renewal.
  await saveLastName(page, 'Renewed Twice');
});
