/**
 * Issue 18, logout CSRF: a link to /v1/logout from any site used to sign the holder out (the page posted itself).
 * The page now posts itself only for okta-auth-js's signOut() (an id_token_hint of the current session) or a
 * request from the portal's own origins; anything else gets a "Sign out?" page that does nothing until the holder
 * presses its button.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { apiPaths } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import {
  appForBlock,
  CLIENT_ID,
  type CookieJar,
  exchangeCode,
  hiddenFields,
  PORTAL,
  signIn,
  startApp,
  type Tokens,
} from './helpers.js';
import { newUser } from './security-helpers.js';

const t = appForBlock(() => startApp());

interface Holder {
  id: string;
  jar: CookieJar;
  tokens: Tokens;
}

async function signedIn(app: FastifyInstance): Promise<Holder> {
  const { user, password } = await newUser(app);
  const result = await signIn(app, { email: user.email, password });
  return { id: user.id, jar: result.jar, tokens: await exchangeCode(app, result) };
}

/** The API checks the token's provider session on every call: 200 while it lives, 401 once it has ended. */
async function sessionAlive(app: FastifyInstance, holder: Holder): Promise<boolean> {
  const response = await app.inject({
    url: apiPaths.isFederated(holder.id),
    headers: { authorization: `Bearer ${holder.tokens.access_token}` },
  });
  expect([200, 401]).toContain(response.statusCode);
  return response.statusCode === 200;
}

function logoutPage(
  app: FastifyInstance,
  holder: Holder,
  params: Record<string, string>,
  headers: Record<string, string>,
): Promise<LightMyRequestResponse> {
  return app.inject({
    url: `/oauth2/default/v1/logout?${new URLSearchParams(params).toString()}`,
    headers: { cookie: holder.jar.header(), ...headers },
  });
}

/** What a browser does with the page's form: posts its hidden fields (the page's own script, or the button). */
async function submit(app: FastifyInstance, holder: Holder, page: LightMyRequestResponse) {
  holder.jar.store(page);
  const action = /<form id="op.logoutForm" method="post" action="([^"]+)"/.exec(page.body)?.[1] ?? '';
  expect(action).not.toBe('');
  return app.inject({
    method: 'POST',
    url: new URL(action).pathname,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: holder.jar.header() },
    payload: new URLSearchParams(hiddenFields(page.body)).toString(),
  });
}

const autoSubmits = (page: LightMyRequestResponse) => page.body.includes('document.forms[0].submit()');

/** A top-level link on another site, as Chromium sends it. */
const CROSS_SITE = {
  'sec-fetch-site': 'cross-site',
  'sec-fetch-mode': 'navigate',
  referer: 'https://evil.example/',
};

function expectConfirmation(page: LightMyRequestResponse) {
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain('<h1>Sign out?</h1>');
  expect(page.body).toMatch(/<button type="submit"[^>]*>Sign out<\/button>/);
  expect(autoSubmits(page)).toBe(false);
  expect(page.body).not.toContain('<script');
  // The form is the holder's to send: it carries the "end every client's session" flag only when pressed.
  expect(hiddenFields(page.body).logout).toBe('yes');
}

describe('the logout page requested from another site', () => {
  it('with no id_token_hint: asks "Sign out?" and the holder stays signed in until they confirm', async () => {
    const holder = await signedIn(t.app);
    const variants: Record<string, string>[] = [
      {},
      { client_id: CLIENT_ID, post_logout_redirect_uri: `${PORTAL}/` },
      { state: 'x' },
    ];
    for (const params of variants) {
      const page = await logoutPage(t.app, holder, params, CROSS_SITE);
      expectConfirmation(page);
      holder.jar.store(page);
      expect(await sessionAlive(t.app, holder)).toBe(true);
    }
    // No Sec-Fetch-Site (an older browser) and no Referer: the same question.
    expectConfirmation(await logoutPage(t.app, holder, {}, {}));
    // An address typed or pasted (Sec-Fetch-Site: none): a link can be pasted too; asked.
    expectConfirmation(await logoutPage(t.app, holder, {}, { 'sec-fetch-site': 'none' }));
    // Another site's form posting to /v1/logout (were its cookies sent): asked too.
    const posted = await t.app.inject({
      method: 'POST',
      url: '/oauth2/default/v1/logout',
      headers: {
        cookie: holder.jar.header(),
        'content-type': 'application/x-www-form-urlencoded',
        origin: 'https://evil.example',
        'sec-fetch-site': 'cross-site',
      },
      payload: `client_id=${CLIENT_ID}`,
    });
    expectConfirmation(posted);
    // A Referer that only looks like the portal's is not the portal's origin.
    expectConfirmation(
      await logoutPage(
        t.app,
        holder,
        {},
        { referer: `${PORTAL}.evil.example/`, 'sec-fetch-site': 'cross-site' },
      ),
    );
    expect(await sessionAlive(t.app, holder)).toBe(true);

    // The holder presses "Sign out": now, and only now, the session ends.
    const page = await logoutPage(t.app, holder, {}, CROSS_SITE);
    const done = await submit(t.app, holder, page);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toMatch(/\/oauth2\/default\/v1\/logout\/success$/);
    expect(await sessionAlive(t.app, holder)).toBe(false);
  });

  it("with someone else's ID token as the hint (the attacker's own): still the question", async () => {
    const holder = await signedIn(t.app);
    const attacker = await signedIn(t.app);
    const page = await logoutPage(
      t.app,
      holder,
      { id_token_hint: attacker.tokens.id_token, post_logout_redirect_uri: `${PORTAL}/` },
      CROSS_SITE,
    );
    expectConfirmation(page);
    expect(await sessionAlive(t.app, holder)).toBe(true);
  });
});

describe('the logout page signs out with no question asked', () => {
  it("for okta-auth-js's signOut(): an id_token_hint of the current session (even from another site)", async () => {
    const holder = await signedIn(t.app);
    const page = await logoutPage(
      t.app,
      holder,
      { id_token_hint: holder.tokens.id_token, post_logout_redirect_uri: `${PORTAL}/` },
      CROSS_SITE,
    );
    expect(page.statusCode).toBe(200);
    expect(autoSubmits(page)).toBe(true);
    expect(page.body).toContain('Signing out');
    const done = await submit(t.app, holder, page);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`${PORTAL}/`);
    expect(await sessionAlive(t.app, holder)).toBe(false);
  });

  it('for a request from the portal itself (Sec-Fetch-Site same-origin, or a Referer of a trusted origin)', async () => {
    const fromThePortal: Record<string, string>[] = [
      { 'sec-fetch-site': 'same-origin' },
      { 'sec-fetch-site': 'same-site', referer: 'http://localhost:3001/profile' },
      { referer: `${PORTAL}/security` },
      { origin: PORTAL },
    ];
    for (const headers of fromThePortal) {
      const holder = await signedIn(t.app);
      const page = await logoutPage(t.app, holder, {}, headers);
      expect(autoSubmits(page), JSON.stringify(headers)).toBe(true);
      expect((await submit(t.app, holder, page)).statusCode).toBe(303);
      expect(await sessionAlive(t.app, holder)).toBe(false);
    }
  });
});
