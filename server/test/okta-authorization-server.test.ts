/**
 * The Okta org stand-in's default authorization server ({org}/oauth2/default, support/okta-org/authorization-server.ts):
 * what okta-auth-js signs in against in Okta mode. Driven here over loopback with fetch as a browser would (the
 * sign-in form, cookies, redirects, PKCE), and its tokens taken to the portal in Okta mode.
 */
import { createHash, randomBytes } from 'node:crypto';
import { apiPaths } from 'shared-auth/contract';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTwice, type TestApp } from './helpers.js';
import { DEFAULT_AUDIENCE, SIGN_IN_REFUSED, startOktaOrg } from './support/okta-org/index.js';
import { useOktaOrg } from './support/okta-org/vitest.js';
import { OKTA_PORTAL_CLIENT_ID, oktaAuthorizationServer, startOktaPortal } from './support/okta-portal.js';
import { CookieBrowser } from './support/okta-browser.js';

const CLIENT_ORIGIN = 'http://localhost:3999';
const REDIRECT_URI = `${CLIENT_ORIGIN}/login/callback`;
const OTHER_CLIENT_ID = '0oaAnotherSpa';
const OTHER_REDIRECT_URI = 'http://localhost:3998/login/callback';
/** A native app with the Resource Owner Password grant (what `pnpm okta:check` signs in with). */
const NATIVE_CLIENT_ID = '0oaNativeCheckApp';
const ADMIN_TOKEN = 'admin-api-token';
const PASSWORD = 'Correct-Horse-1';
/** What okta-auth-js asks for (shared-auth PORTAL_SCOPES). */
const SCOPES = 'openid profile email phone';

const org = useOktaOrg({
  apiToken: ADMIN_TOKEN,
  authorizationServer: {
    clients: [
      {
        clientId: OKTA_PORTAL_CLIENT_ID,
        redirectUris: [REDIRECT_URI],
        postLogoutRedirectUris: [CLIENT_ORIGIN, `${CLIENT_ORIGIN}/`],
      },
      { clientId: OTHER_CLIENT_ID, redirectUris: [OTHER_REDIRECT_URI], postLogoutRedirectUris: [] },
      { clientId: NATIVE_CLIENT_ID, passwordGrant: true },
    ],
  },
});
const issuer = () => `${org().url}/oauth2/default`;

let users = 0;
function newUser(profile: Record<string, unknown> = {}) {
  users += 1;
  const login = `grace${users}@customer.example`;
  const user = org().addUser({
    profile: {
      login,
      email: login,
      firstName: 'Grace',
      lastName: 'Hopper',
      countryCode: 'US',
      ...profile,
    },
    password: PASSWORD,
  });
  return { id: user.id, login };
}

/** A browser's share of the flow at the stand-in org. */
class Browser extends CookieBrowser {
  constructor() {
    super(org().url);
  }
}

interface Authorization {
  browser: Browser;
  verifier: string;
  state: string;
  nonce: string;
  clientId: string;
  redirectUri: string;
}

function authorizeUrl(a: Authorization, extra: Record<string, string> = {}): string {
  const challenge = createHash('sha256').update(a.verifier).digest('base64url');
  const params = new URLSearchParams({
    client_id: a.clientId,
    redirect_uri: a.redirectUri,
    response_type: 'code',
    response_mode: 'query',
    scope: SCOPES,
    state: a.state,
    nonce: a.nonce,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
  return `${issuer()}/v1/authorize?${params.toString()}`;
}

function newAuthorization(browser = new Browser(), clientId = OKTA_PORTAL_CLIENT_ID): Authorization {
  return {
    browser,
    verifier: randomBytes(32).toString('base64url'),
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    clientId,
    redirectUri: clientId === OKTA_PORTAL_CLIENT_ID ? REDIRECT_URI : OTHER_REDIRECT_URI,
  };
}

interface SignInForm {
  action: string;
  html: string;
}

/** The sign-in page as a user sees it: its labelled fields and button, and where the form posts. */
function readForm(pageUrl: string, html: string): SignInForm {
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form on ${pageUrl}: ${html}`);
  for (const [label, name] of [
    ['Username', 'username'],
    ['Password', 'password'],
  ] as const) {
    const id = new RegExp(`<label for="([^"]+)">${label}</label>`).exec(html)?.[1];
    expect(id, `a field labelled ${label}`).toBeDefined();
    expect(html).toMatch(new RegExp(`<input id="${id}" name="${name}"`));
  }
  expect(html).toMatch(/<button type="submit">Sign in<\/button>/);
  return { action: new URL(action.replace(/&amp;/g, '&'), pageUrl).href, html };
}

/** Opens /authorize and expects the sign-in form. */
async function openSignIn(a: Authorization, extra: Record<string, string> = {}): Promise<SignInForm> {
  const { url, response } = await a.browser.navigate(authorizeUrl(a, extra));
  expect(response.status, `the sign-in page (at ${url})`).toBe(200);
  expect(url).toMatch(new RegExp(`^${org().url}/signin/`));
  return readForm(url, await response.text());
}

/** Posts the form; answers the code at the redirect URI, or the page shown instead. */
async function submit(
  a: Authorization,
  form: SignInForm,
  username: string,
  password: string,
): Promise<{ code?: string; status: number; html?: string }> {
  const { url, response } = await a.browser.navigate(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username, password }).toString(),
  });
  if (url.startsWith(a.redirectUri)) {
    const params = new URL(url).searchParams;
    expect(params.get('state')).toBe(a.state);
    return { code: params.get('code') ?? undefined, status: response.status };
  }
  return { status: response.status, html: await response.text() };
}

interface Tokens {
  access_token: string;
  id_token: string;
  refresh_token?: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

async function token(a: Authorization, form: Record<string, string>): Promise<Tokens> {
  const response = await fetch(`${issuer()}/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: CLIENT_ORIGIN },
    body: new URLSearchParams({ client_id: a.clientId, ...form }).toString(),
  });
  const body = (await response.json()) as Tokens;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

const exchange = (a: Authorization, code: string) =>
  token(a, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: a.redirectUri,
    code_verifier: a.verifier,
  });

/** The whole sign-in: authorize, the form, the code, the tokens. */
async function signIn(login: string, password = PASSWORD, a = newAuthorization()): Promise<Tokens> {
  const form = await openSignIn(a);
  const result = await submit(a, form, login, password);
  expect(result.code, result.html).toBeDefined();
  return exchange(a, result.code as string);
}

/** Okta's Management API with the admin's API token (the test acting "in Okta's admin"). */
async function management(method: string, path: string, body: unknown): Promise<Response> {
  return fetch(`${org().url}${path}`, {
    method,
    headers: {
      authorization: `SSWS ${ADMIN_TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify(body),
  });
}

const alertOf = (html: string | undefined) => /role="alert">([^<]*)</.exec(html ?? '')?.[1];

describe('discovery and keys', () => {
  it("publishes Okta's routes under {org}/oauth2/default", async () => {
    const response = await fetch(`${issuer()}/.well-known/openid-configuration`, {
      headers: { origin: CLIENT_ORIGIN },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(CLIENT_ORIGIN);
    expect(await response.json()).toMatchObject({
      issuer: issuer(),
      authorization_endpoint: `${issuer()}/v1/authorize`,
      token_endpoint: `${issuer()}/v1/token`,
      jwks_uri: `${issuer()}/v1/keys`,
      end_session_endpoint: `${issuer()}/v1/logout`,
      revocation_endpoint: `${issuer()}/v1/revoke`,
      userinfo_endpoint: `${issuer()}/v1/userinfo`,
      code_challenge_methods_supported: ['S256'],
    });
  });
});

describe('sign-in with the authorization code and PKCE', () => {
  it("signs in a user of the org on the stand-in's form; the access token is shaped like Okta's", async () => {
    const grace = newUser();
    const before = Math.floor(Date.now() / 1000);
    const mark = org().requests().length;
    const tokens = await signIn(grace.login);
    expect(tokens).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });

    const keys = createRemoteJWKSet(new URL(`${issuer()}/v1/keys`));
    const { payload: access } = await jwtVerify(tokens.access_token, keys, {
      issuer: issuer(),
      audience: DEFAULT_AUDIENCE,
      algorithms: ['RS256'],
    });
    expect(decodeProtectedHeader(tokens.access_token)).toEqual({ alg: 'RS256', kid: expect.any(String) });
    expect(access).toEqual({
      ver: 1,
      jti: expect.any(String),
      iss: issuer(),
      aud: 'api://default',
      iat: expect.any(Number),
      exp: (access.iat as number) + 3600,
      cid: OKTA_PORTAL_CLIENT_ID,
      uid: grace.id,
      scp: ['openid', 'profile', 'email', 'phone'],
      auth_time: expect.any(Number),
      sub: grace.login,
    });
    expect(access.auth_time).toBeGreaterThanOrEqual(before);

    const { payload: id } = await jwtVerify(tokens.id_token, keys, {
      issuer: issuer(),
      audience: OKTA_PORTAL_CLIENT_ID,
    });
    expect(id).toMatchObject({
      sub: grace.id,
      name: 'Grace Hopper',
      given_name: 'Grace',
      family_name: 'Hopper',
      preferred_username: grace.login,
      email: grace.login,
      country: 'US',
      amr: ['pwd'],
      auth_time: access.auth_time,
    });
    const userinfo = await fetch(`${issuer()}/v1/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}`, origin: CLIENT_ORIGIN },
    });
    expect(userinfo.status).toBe(200);
    expect(userinfo.headers.get('access-control-allow-origin')).toBe(CLIENT_ORIGIN);
    expect(await userinfo.json()).toMatchObject({ sub: grace.id, given_name: 'Grace', email: grace.login });
    const anonymous = await fetch(`${issuer()}/v1/userinfo`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('error="invalid_token"');

    // The sign-in is Okta's, not Management API traffic: nothing logged or validated as such.
    expect(org().requests().slice(mark)).toEqual([]);
    expect(org().user(grace.id)).toBeDefined();
  });

  it("refuses a wrong password with Okta's 'Unable to sign in', then takes the right one", async () => {
    const grace = newUser();
    const a = newAuthorization();
    const form = await openSignIn(a);
    const refused = await submit(a, form, grace.login, 'Wrong-Horse-1');
    expect(refused.code).toBeUndefined();
    expect(refused.status).toBe(401);
    expect(alertOf(refused.html)).toBe(SIGN_IN_REFUSED);
    expect(SIGN_IN_REFUSED).toBe('Unable to sign in');
    // The same text for a login the org does not know, and for the user id in place of the login.
    expect(alertOf((await submit(a, form, 'nobody@customer.example', PASSWORD)).html)).toBe(SIGN_IN_REFUSED);
    expect(alertOf((await submit(a, form, grace.id, PASSWORD)).html)).toBe(SIGN_IN_REFUSED);

    // The login in any case.
    const accepted = await submit(a, form, grace.login.toUpperCase(), PASSWORD);
    expect(accepted.code).toBeDefined();
  });

  it('refuses a user who is not ACTIVE (suspended in the org): no sign-in, no more tokens', async () => {
    const grace = newUser();
    const before = newAuthorization();
    const tokens = await signIn(grace.login, PASSWORD, before);
    const suspended = await fetch(`${org().url}/__test/users/${grace.id}/status`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'SUSPENDED' }),
    });
    expect(suspended.status).toBe(204);
    expect(org().user(grace.id)?.status).toBe('SUSPENDED');
    const a = newAuthorization();
    const refused = await submit(a, await openSignIn(a), grace.login, PASSWORD);
    expect(refused.code).toBeUndefined();
    expect(alertOf(refused.html)).toBe(SIGN_IN_REFUSED);

    const refresh = await fetch(`${issuer()}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: OKTA_PORTAL_CLIENT_ID,
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
      }).toString(),
    });
    expect(refresh.status).toBe(400);
    expect(await refresh.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it("checks the org's current password: after a change through the Management API the old one is refused", async () => {
    const grace = newUser();
    const changed = await management('POST', `/api/v1/users/${grace.id}/credentials/change_password`, {
      oldPassword: { value: PASSWORD },
      newPassword: { value: 'Battery-Staple-2' },
    });
    expect(changed.status).toBe(200);

    const a = newAuthorization();
    const form = await openSignIn(a);
    expect(alertOf((await submit(a, form, grace.login, PASSWORD)).html)).toBe(SIGN_IN_REFUSED);
    expect((await submit(a, form, grace.login, 'Battery-Staple-2')).code).toBeDefined();
  });

  it('signs in again without the form while the org session lives; prompt=login and max_age=0 ask again', async () => {
    const grace = newUser();
    const browser = new Browser();
    const first = await signIn(grace.login, PASSWORD, newAuthorization(browser));
    const firstAuthTime = decodeJwt(first.access_token).auth_time as number;

    // The session: the code comes straight back, with the first sign-in's auth_time.
    const silent = newAuthorization(browser);
    const { url } = await browser.navigate(authorizeUrl(silent));
    expect(url.startsWith(REDIRECT_URI)).toBe(true);
    const again = await exchange(silent, new URL(url).searchParams.get('code') as string);
    expect(decodeJwt(again.access_token).auth_time).toBe(firstAuthTime);

    for (const extra of [{ prompt: 'login' }, { max_age: '0' }] as Record<string, string>[]) {
      const a = newAuthorization(browser);
      const form = await openSignIn(a, extra);
      const before = Math.floor(Date.now() / 1000);
      const result = await submit(a, form, grace.login, PASSWORD);
      expect(result.code, JSON.stringify(extra)).toBeDefined();
      const tokens = await exchange(a, result.code as string);
      expect(decodeJwt(tokens.access_token).auth_time).toBeGreaterThanOrEqual(before);
      expect(decodeJwt(tokens.id_token).auth_time).toBeGreaterThanOrEqual(before);
    }
  });
});

describe('renewal and sign-out', () => {
  it('renews with the refresh token; the ID token then carries the profile saved in the org', async () => {
    const grace = newUser();
    const a = newAuthorization();
    const tokens = await signIn(grace.login, PASSWORD, a);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const saved = await management('POST', `/api/v1/users/${grace.id}`, {
      profile: { firstName: 'Amazing', countryCode: 'NO' },
    });
    expect(saved.status).toBe(200);

    const renewed = await token(a, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token as string,
      scope: SCOPES,
    });
    expect(decodeJwt(renewed.id_token)).toMatchObject({
      sub: grace.id,
      given_name: 'Amazing',
      name: 'Amazing Hopper',
      country: 'NO',
    });
    const access = decodeJwt(renewed.access_token);
    expect(access).toMatchObject({ uid: grace.id, sub: grace.login, cid: OKTA_PORTAL_CLIENT_ID });
    expect(access.auth_time).toBe(decodeJwt(tokens.access_token).auth_time);
  });

  it('answers a silent renew (prompt=none, okta_post_message) with a page posting the code to the client origin', async () => {
    const grace = newUser();
    const browser = new Browser();
    await signIn(grace.login, PASSWORD, newAuthorization(browser));
    const a = newAuthorization(browser);
    const { response } = await browser.navigate(
      authorizeUrl(a, { prompt: 'none', response_mode: 'okta_post_message' }),
    );
    expect(response.status).toBe(200);
    const html = await response.text();
    const posted = /var data=(\{[^;]*\});/.exec(html)?.[1];
    const data = JSON.parse(posted ?? '{}') as { code?: string; state?: string };
    expect(data.state).toBe(a.state);
    expect(html).toContain(`postMessage(data,"${CLIENT_ORIGIN}")`);
    const renewed = await exchange(a, data.code as string);
    expect(decodeJwt(renewed.access_token).uid).toBe(grace.id);

    // Without the org's session: login_required, posted the same way.
    const anonymous = newAuthorization();
    const refused = await anonymous.browser.navigate(
      authorizeUrl(anonymous, { prompt: 'none', response_mode: 'okta_post_message' }),
    );
    expect(await refused.response.text()).toContain('"error":"login_required"');
  });

  it("revokes with okta-auth-js's Basic client id and ends the session at /v1/logout", async () => {
    const grace = newUser();
    const browser = new Browser();
    const tokens = await signIn(grace.login, PASSWORD, newAuthorization(browser));

    // okta-auth-js's signOut() revokes the refresh token, then the access token (a JWT).
    for (const [hint, value] of [
      ['refresh_token', tokens.refresh_token as string],
      ['access_token', tokens.access_token],
    ] as const) {
      const revoked = await fetch(`${issuer()}/v1/revoke`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(OKTA_PORTAL_CLIENT_ID).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          origin: CLIENT_ORIGIN,
        },
        body: new URLSearchParams({ token: value, token_type_hint: hint }).toString(),
      });
      expect(revoked.status, hint).toBe(200);
      expect(revoked.headers.get('access-control-allow-origin')).toBe(CLIENT_ORIGIN);
    }
    const refreshed = await fetch(`${issuer()}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        client_id: OKTA_PORTAL_CLIENT_ID,
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token as string,
      }).toString(),
    });
    expect(refreshed.status).toBe(400);
    expect(await refreshed.json()).toMatchObject({ error: 'invalid_grant' });

    const logout = new URLSearchParams({
      id_token_hint: tokens.id_token,
      post_logout_redirect_uri: `${CLIENT_ORIGIN}/`,
      state: 'bye',
    });
    const { response } = await browser.navigate(`${issuer()}/v1/logout?${logout.toString()}`);
    // The page posts its own form (no question asked); a browser runs the script, this test posts it.
    const html = await response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1] as string;
    const fields = new URLSearchParams(
      [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((m) => [
        m[1] ?? '',
        m[2] ?? '',
      ]),
    );
    const ended = await browser.navigate(new URL(action, issuer()).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: fields.toString(),
    });
    expect(ended.url).toBe(`${CLIENT_ORIGIN}/?state=bye`);

    // The session is gone: the form again.
    await openSignIn(newAuthorization(browser));
  });
});

describe("a browser's other requests", () => {
  it("answers the pages' icon with 404, not as an unsimulated call", async () => {
    const response = await fetch(`${org().url}/favicon.ico`);
    expect(response.status).toBe(404);
    // useOktaOrg fails the test on any violation.
  });
});

describe('CORS', () => {
  it("answers the token endpoint's preflight for a client's origin only", async () => {
    const preflight = (origin: string) =>
      fetch(`${issuer()}/v1/token`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-okta-user-agent-extended',
        },
      });
    const allowed = await preflight(CLIENT_ORIGIN);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(CLIENT_ORIGIN);
    expect(allowed.headers.get('access-control-allow-methods')).toContain('POST');
    expect(allowed.headers.get('access-control-allow-headers')).toBe(
      'content-type,x-okta-user-agent-extended',
    );

    const other = await preflight('http://localhost:4999');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the portal in Okta mode takes its tokens', () => {
  let portal: TestApp;
  beforeAll(async () => {
    portal = await startOktaPortal(org());
  });
  afterAll(async () => {
    await portal?.close();
  });

  it("answers the signed-in user's calls with the org's values; a token of another client is refused", async () => {
    const grace = newUser();
    const tokens = await signIn(grace.login);
    const call = (method: 'GET' | 'PUT', url: string, accessToken: string, body?: unknown) =>
      portal.app.inject({
        method,
        url,
        headers: {
          authorization: `Bearer ${accessToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });

    const federated = await call('GET', apiPaths.isFederated(grace.id), tokens.access_token);
    expect(federated.statusCode, federated.body).toBe(200);
    const saved = await call('PUT', apiPaths.profileUpdate(grace.id), tokens.access_token, {
      firstName: 'Rear Admiral',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(parseTwice(saved.body)).toMatchObject({
      sub: grace.id,
      email: grace.login,
      firstName: 'Rear Admiral',
      lastName: 'Hopper',
      country: 'US',
    });
    expect(org().user(grace.id)?.profile.firstName).toBe('Rear Admiral');

    // Another SPA of the same authorization server: same issuer and audience, another cid.
    const other = await signIn(grace.login, PASSWORD, newAuthorization(new Browser(), OTHER_CLIENT_ID));
    expect(decodeJwt(other.access_token).cid).toBe(OTHER_CLIENT_ID);
    const refused = await call('GET', apiPaths.isFederated(grace.id), other.access_token);
    expect(refused.statusCode).toBe(401);
  });
});

describe('with the jwks option too', () => {
  it("publishes the test's keys next to the server's own", async () => {
    const signer = oktaAuthorizationServer();
    const both = await startOktaOrg({
      jwks: signer.jwks,
      authorizationServer: {
        clients: [{ clientId: 'c', redirectUris: [REDIRECT_URI], postLogoutRedirectUris: [] }],
      },
    });
    try {
      const response = await fetch(`${both.url}/oauth2/default/v1/keys`);
      const { keys } = (await response.json()) as { keys: { kid: string; d?: string }[] };
      expect(keys.map((k) => k.kid)).toEqual([expect.stringMatching(/^stand-in-/), 'okta-key-1']);
      expect(keys.every((k) => k.d === undefined)).toBe(true);
      expect(both.violations()).toEqual([]);
    } finally {
      await both.close();
    }
  });
});

describe('test-only: a backdated sign-in (backdateNextSignIn)', () => {
  it("the user's next sign-in carries an auth_time that many minutes ago, once; prompt=login then signs in fresh", async () => {
    const grace = newUser();
    const other = newUser();
    org().backdateNextSignIn(grace.login, 10);
    const browser = new Browser();
    const before = Math.floor(Date.now() / 1000);
    const stale = await signIn(grace.login, PASSWORD, newAuthorization(browser));
    const after = Math.floor(Date.now() / 1000);
    const staleAuthTime = decodeJwt(stale.access_token).auth_time as number;
    expect(staleAuthTime).toBeGreaterThanOrEqual(before - 600);
    expect(staleAuthTime).toBeLessThanOrEqual(after - 600);
    expect(decodeJwt(stale.id_token).auth_time).toBe(staleAuthTime);
    // Only that user's sign-in.
    const fresh = await signIn(other.login);
    expect(decodeJwt(fresh.access_token).auth_time).toBeGreaterThanOrEqual(before);

    // The org session keeps the old time until the user signs in again, as the portal's 'Sign in again' asks.
    const a = newAuthorization(browser);
    const form = await openSignIn(a, { prompt: 'login', max_age: '0' });
    const again = await submit(a, form, grace.login, PASSWORD);
    expect(again.code, again.html).toBeDefined();
    const renewed = await exchange(a, again.code as string);
    expect(decodeJwt(renewed.access_token).auth_time).toBeGreaterThanOrEqual(before);
  });

  it('refuses an unknown user and a number of minutes that is not positive', () => {
    const grace = newUser();
    expect(() => org().backdateNextSignIn('nobody@customer.example', 10)).toThrow(
      'backdateNextSignIn: no user nobody@customer.example',
    );
    expect(() => org().backdateNextSignIn(grace.id, 0)).toThrow('minutes must be a positive number');
    expect(() => org().backdateNextSignIn(grace.id, Number.NaN)).toThrow('minutes must be a positive number');
  });
});

describe('the Resource Owner Password grant (a native app, as `pnpm okta:check` signs in)', () => {
  const passwordGrant = (form: Record<string, string>) =>
    fetch(`${issuer()}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'password', scope: 'openid profile email', ...form }),
    });

  it("issues Okta's access token (auth_time now) and an ID token for the login and current password", async () => {
    const user = newUser();
    const before = Math.floor(Date.now() / 1000);
    const response = await passwordGrant({
      client_id: NATIVE_CLIENT_ID,
      username: user.login.toUpperCase(),
      password: PASSWORD,
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'openid profile email' });
    expect(body.refresh_token).toBeUndefined();
    const keys = createRemoteJWKSet(new URL(`${issuer()}/v1/keys`));
    const { payload: access } = await jwtVerify(String(body.access_token), keys, {
      issuer: issuer(),
      audience: DEFAULT_AUDIENCE,
    });
    expect(access).toMatchObject({
      ver: 1,
      cid: NATIVE_CLIENT_ID,
      uid: user.id,
      sub: user.login,
      scp: ['openid', 'profile', 'email'],
    });
    expect(access.auth_time).toBeGreaterThanOrEqual(before);
    const { payload: id } = await jwtVerify(String(body.id_token), keys, {
      issuer: issuer(),
      audience: NATIVE_CLIENT_ID,
    });
    expect(id).toMatchObject({ sub: user.id, amr: ['pwd'], given_name: 'Grace', email: user.login });
    expect(id.auth_time).toBeGreaterThanOrEqual(before);
  });

  it("refuses a wrong password, an unknown login and a user who is not ACTIVE with Okta's one answer", async () => {
    const user = newUser();
    const suspended = newUser();
    org().setUserStatus(suspended.id, 'SUSPENDED');
    for (const [username, password] of [
      [user.login, 'Wrong-Horse-1'],
      ['nobody@customer.example', PASSWORD],
      [user.id, PASSWORD],
      [suspended.login, PASSWORD],
    ] as const) {
      const response = await passwordGrant({ client_id: NATIVE_CLIENT_ID, username, password });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: 'invalid_grant',
        error_description: 'The credentials provided were invalid.',
      });
    }
  });

  it('is refused to an app without the grant (unauthorized_client), and an unknown scope is refused', async () => {
    newUser();
    const spa = await passwordGrant({
      client_id: OKTA_PORTAL_CLIENT_ID,
      username: 'grace1@customer.example',
      password: PASSWORD,
    });
    expect(spa.status).toBe(400);
    expect(await spa.json()).toEqual({
      error: 'unauthorized_client',
      error_description:
        'The client is not authorized to use the provided grant type. Configured grant types: [authorization_code, refresh_token].',
    });
    const user = newUser();
    const scope = await passwordGrant({
      client_id: NATIVE_CLIENT_ID,
      username: user.login,
      password: PASSWORD,
      scope: 'openid okta.users.manage',
    });
    expect(scope.status).toBe(400);
    expect(await scope.json()).toMatchObject({ error: 'invalid_scope' });
  });
});
