import { expect, type Page } from '@playwright/test';
import { createUser, type TestUser } from './users.js';

/** Signs in on the identity provider's own page (the sign-in page is not the portal's). */
export async function signInOnProvider(page: Page, user: { email: string; password: string }): Promise<void> {
  await expect(page.getByRole('button', { name: 'Sign in', exact: true })).toBeVisible();
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Opens a portal page while signed out, signs in, and waits to be back on it. */
export async function signIn(page: Page, user: { email: string; password: string }, path = '/profile') {
  await page.goto(path);
  await signInOnProvider(page, user);
  await expect(page).toHaveURL(new RegExp(`${path.replace(/\//g, '\\/')}$`));
}

/** A new account of its own (createUser), signed in on `path`: where most tests start. */
export async function signInNewUser(page: Page, path?: string): Promise<TestUser> {
  const user = await createUser();
  await signIn(page, user, path);
  return user;
}

/** The page's access token, as the shell keeps it (okta-auth-js token storage), once it is there. */
export async function accessTokenOf(page: Page): Promise<string> {
  const read = () =>
    page.evaluate(() => {
      const storage = JSON.parse(localStorage.getItem('okta-token-storage') ?? '{}') as {
        accessToken?: { accessToken?: string };
      };
      return storage.accessToken?.accessToken ?? '';
    });
  await expect.poll(read, { message: "the page's access token" }).not.toBe('');
  return read();
}
