/** Each thing okta-auth-js 8 / okta-react 6 need from the embedded provider, proven one by one. */
import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import {
  ALICE,
  authorizeUrl,
  CLIENT_ID,
  CookieJar,
  exchangeCode,
  follow,
  hiddenFields,
  PORTAL,
  signIn,
  startApp,
  tokensFor,
  appForBlock,
} from './helpers.js';

const TRUSTED = 'http://localhost:3100';
const UNTRUSTED = 'http://localhost:4444';
const form = { 'content-type': 'application/x-www-form-urlencoded' };

const t = appForBlock(() => startApp());

/** A refresh-token grant as a bare client sends it: no scopes repeated (see refreshRequest for okta-auth-js's). */
function refreshGrant(refreshToken: string | undefined, headers: Record<string, string> = form) {
  return t.app.inject({
    method: 'POST',
    url: '/oauth2/default/v1/token',
    headers,
    payload: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: CLIENT_ID,
      refresh_token: refreshToken ?? '',
    }).toString(),
  });
}

/** The JSON object and target origin the okta_post_message page posts, and the script's CSP hash. */
function postedMessage(body: string) {
  const script = /<script>([\s\S]*?)<\/script>/.exec(body)?.[1] ?? '';
  const data = /var data=(\{.*?\});/.exec(script)?.[1];
  const target = /postMessage\(data,("[^"]*")\)/.exec(script)?.[1];
  return {
    data: data ? (JSON.parse(data) as Record<string, string>) : undefined,
    target: target ? (JSON.parse(target) as string) : undefined,
    hash: `'sha256-${createHash('sha256').update(script).digest('base64')}'`,
  };
}

describe('silent renew: response_mode=okta_post_message', () => {
  it('posts {code, state} to the parent window at the redirect_uri origin, framable by trusted origins', async () => {
    const { jar } = await signIn(t.app, ALICE);
    const response = await t.app.inject({
      url: authorizeUrl({
        origin: TRUSTED,
        prompt: 'none',
        responseMode: 'okta_post_message',
        state: 'renew-1',
      }),
      headers: { cookie: jar.header() },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
    const { data, target, hash } = postedMessage(response.body);
    expect(target).toBe(TRUSTED);
    expect(data).toEqual({ code: expect.any(String), state: 'renew-1' });

    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain(hash);
    expect(csp).toMatch(new RegExp(`frame-ancestors 'self'[^;]* ${TRUSTED}`));
    expect(response.headers['x-frame-options']).toBeUndefined();
  });

  it('posts {error: login_required, state} when there is no provider session', async () => {
    const response = await t.app.inject(
      authorizeUrl({ prompt: 'none', responseMode: 'okta_post_message', state: 'renew-2' }),
    );
    expect(response.statusCode).toBe(200);
    const { data, target } = postedMessage(response.body);
    expect(target).toBe(PORTAL);
    expect(data).toMatchObject({ error: 'login_required', state: 'renew-2' });
    expect(data).not.toHaveProperty('code');
  });
});

describe('revocation with Authorization: Basic base64(clientId)', () => {
  it('accepts the header okta-auth-js sends and revokes the refresh token', async () => {
    const tokens = await tokensFor(t.app, ALICE);
    const authorization = `Basic ${Buffer.from(CLIENT_ID).toString('base64')}`;
    for (const [token, hint] of [
      [tokens.access_token, 'access_token'],
      [tokens.refresh_token ?? '', 'refresh_token'],
    ] as const) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/oauth2/default/v1/revoke',
        headers: {
          ...form,
          authorization,
          origin: PORTAL,
          'x-okta-user-agent-extended': 'okta-auth-js/8.0.1',
        },
        payload: new URLSearchParams({ token_type_hint: hint, token }).toString(),
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe(PORTAL);
    }
    const reuse = await refreshGrant(tokens.refresh_token);
    expect(reuse.statusCode).toBe(400);
    expect(reuse.json()).toMatchObject({ error: 'invalid_grant' });
  });
});

describe('userinfo with the JWT access token', () => {
  it('answers the directory claims for the granted scopes', async () => {
    const tokens = await tokensFor(t.app, ALICE);
    const response = await t.app.inject({
      url: '/oauth2/default/v1/userinfo',
      headers: { authorization: `Bearer ${tokens.access_token}`, origin: TRUSTED },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe(TRUSTED);
    expect(response.json()).toMatchObject({
      sub: decodeJwt(tokens.id_token).sub,
      name: 'Alice Liddell',
      given_name: 'Alice',
      family_name: 'Liddell',
      email: 'alice@example.com',
      email_verified: true,
      country: 'GB',
      isFederated: false,
    });
  });

  it('releases only the claims of the scopes the token carries', async () => {
    const result = await signIn(t.app, ALICE, { scope: 'openid email' });
    const tokens = await exchangeCode(t.app, result);
    const response = await t.app.inject({
      url: '/oauth2/default/v1/userinfo',
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(response.json()).toEqual({
      sub: decodeJwt(tokens.id_token).sub,
      email: 'alice@example.com',
      email_verified: true,
    });
  });

  it('refuses a missing or bad token with 401 and a Bearer challenge', async () => {
    const none = await t.app.inject('/oauth2/default/v1/userinfo');
    expect(none.statusCode).toBe(401);
    expect(none.headers['www-authenticate']).toMatch(/^Bearer realm=/);
    const bad = await t.app.inject({
      url: '/oauth2/default/v1/userinfo',
      headers: { authorization: 'Bearer x.y.z' },
    });
    expect(bad.statusCode).toBe(401);
    expect(bad.headers['www-authenticate']).toContain('error="invalid_token"');
  });
});

describe('CORS on the provider endpoints: PUBLIC_URL and TRUSTED_ORIGINS only', () => {
  async function call(origin: string) {
    const tokens = await tokensFor(t.app, ALICE);
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    const token = await refreshGrant(tokens.refresh_token, { ...form, origin });
    // Refresh tokens rotate: introspect the one the refresh just issued.
    const current = token.statusCode === 200 ? token.json<{ refresh_token: string }>().refresh_token : '';
    return {
      token,
      keys: await t.app.inject({ url: '/oauth2/default/v1/keys', headers: { origin } }),
      discovery: await t.app.inject({
        url: '/oauth2/default/.well-known/openid-configuration',
        headers: { origin },
      }),
      userinfo: await t.app.inject({ url: '/oauth2/default/v1/userinfo', headers: { ...bearer, origin } }),
      revoke: await t.app.inject({
        method: 'POST',
        url: '/oauth2/default/v1/revoke',
        headers: { ...form, origin },
        payload: new URLSearchParams({ client_id: CLIENT_ID, token: tokens.access_token }).toString(),
      }),
      introspect: await t.app.inject({
        method: 'POST',
        url: '/oauth2/default/v1/introspect',
        headers: { ...form, origin },
        payload: new URLSearchParams({ client_id: CLIENT_ID, token: current }).toString(),
      }),
    };
  }

  it.each([PORTAL, 'http://localhost:3001', TRUSTED])('allows %s', async (origin) => {
    const responses = await call(origin);
    for (const [name, response] of Object.entries(responses)) {
      expect(response.statusCode, `${name}: ${response.body}`).toBe(200);
      expect(response.headers['access-control-allow-origin'], name).toBe(origin);
    }
    expect(responses.introspect.json()).toMatchObject({ active: true, client_id: CLIENT_ID });
  });

  it('sends no CORS header to an untrusted origin', async () => {
    const responses = await call(UNTRUSTED);
    for (const [name, response] of Object.entries(responses)) {
      expect(response.headers['access-control-allow-origin'], name).toBeUndefined();
    }
  });

  it('answers preflights for trusted origins with the headers okta-auth-js sends', async () => {
    const preflight = (origin: string) =>
      t.app.inject({
        method: 'OPTIONS',
        url: '/oauth2/default/v1/token',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-okta-user-agent-extended',
        },
      });
    const ok = await preflight(TRUSTED);
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(TRUSTED);
    expect(ok.headers['access-control-allow-methods']).toContain('POST');
    expect(ok.headers['access-control-allow-headers']).toContain('x-okta-user-agent-extended');
    const refused = await preflight(UNTRUSTED);
    expect(refused.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('Okta session API', () => {
  it.each(['GET', 'DELETE'] as const)(
    '%s /api/v1/sessions/me answers 404 in Okta error shape',
    async (method) => {
      const response = await t.app.inject({
        method,
        url: '/api/v1/sessions/me',
        headers: { origin: TRUSTED },
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({
        errorCode: 'E0000007',
        errorSummary: 'Not found: Resource not found: me (Session)',
        errorLink: 'E0000007',
        errorId: expect.stringMatching(/^oae\w+$/),
        errorCauses: [],
      });
      // okta-auth-js sends this one with credentials.
      expect(response.headers['access-control-allow-origin']).toBe(TRUSTED);
      expect(response.headers['access-control-allow-credentials']).toBe('true');
    },
  );
});

describe('logout', () => {
  it.each([`${PORTAL}/`, PORTAL, TRUSTED])(
    'ends the provider session and redirects to %s without asking',
    async (postLogout) => {
      const result = await signIn(t.app, ALICE);
      const tokens = await exchangeCode(t.app, result);
      const { jar } = result;
      const page = await t.app.inject({
        url: `/oauth2/default/v1/logout?${new URLSearchParams({
          id_token_hint: tokens.id_token,
          post_logout_redirect_uri: postLogout,
          state: 'bye',
        }).toString()}`,
        headers: { cookie: jar.header() },
      });
      jar.store(page);
      expect(page.statusCode).toBe(200);
      // No question: the form submits itself (hash-allowed script), with a noscript button as fallback.
      expect(page.body).not.toMatch(/stay signed in|Do you want to sign-out/i);
      expect(page.body).toContain('name="logout" value="yes"');
      expect(page.body).toContain(
        '<noscript><button type="submit" form="op.logoutForm">Sign out</button></noscript>',
      );
      const script = /<script>([\s\S]*?)<\/script>/.exec(page.body)?.[1] ?? '';
      expect(script).toBe('document.forms[0].submit();');
      expect(String(page.headers['content-security-policy'])).toContain(
        `'sha256-${createHash('sha256').update(script).digest('base64')}'`,
      );

      const action = /<form id="op.logoutForm" method="post" action="([^"]+)"/.exec(page.body)?.[1] ?? '';
      const fields = Object.fromEntries(
        [...page.body.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"\/>/g)].map((m) => [
          m[1],
          m[2],
        ]),
      );
      const confirmed = await t.app.inject({
        method: 'POST',
        url: new URL(action).pathname,
        headers: { ...form, cookie: jar.header() },
        payload: new URLSearchParams(fields as Record<string, string>).toString(),
      });
      expect(confirmed.statusCode).toBe(303);
      const location = new URL(String(confirmed.headers.location));
      expect(location.origin).toBe(new URL(postLogout).origin);
      expect(location.pathname).toBe('/');
      expect(location.searchParams.get('state')).toBe('bye');
      jar.store(confirmed);

      // The session is gone: silent sign-in fails, and the session-bound refresh token is dead.
      const silent = await t.app.inject({
        url: authorizeUrl({ prompt: 'none', state: 's' }),
        headers: { cookie: jar.header() },
      });
      expect(new URL(String(silent.headers.location)).searchParams.get('error')).toBe('login_required');
      const renewed = await refreshGrant(tokens.refresh_token);
      expect(renewed.statusCode).toBe(400);
    },
  );

  it('refuses an unregistered post_logout_redirect_uri', async () => {
    const tokens = await tokensFor(t.app, ALICE);
    const response = await t.app.inject(
      `/oauth2/default/v1/logout?${new URLSearchParams({
        id_token_hint: tokens.id_token,
        post_logout_redirect_uri: `${UNTRUSTED}/`,
      }).toString()}`,
    );
    expect(response.statusCode).toBe(400);
    expect(response.headers.location).toBeUndefined();
  });
});

describe('the sign-in page', () => {
  async function openSignIn() {
    const jar = new CookieJar();
    const page = await follow(t.app, jar, await t.app.inject(authorizeUrl()));
    const action = /<form method="post" action="([^"]+)"/.exec(page.body)?.[1] ?? '';
    const post = (fields: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: action,
        headers: { ...form, cookie: jar.header() },
        // As a browser posts the form: its hidden CSRF token too.
        payload: new URLSearchParams({ ...hiddenFields(page.body), ...fields }).toString(),
      });
    return { page, post };
  }

  it('is plain, labelled HTML', async () => {
    const { page } = await openSignIn();
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(page.body).toMatch(/<h1>Sign in<\/h1>/);
    expect(page.body).toContain('<label for="email">Email</label>');
    expect(page.body).toContain('<input id="email" name="email" type="email"');
    expect(page.body).toContain('<label for="password">Password</label>');
    expect(page.body).toContain('<input id="password" name="password" type="password"');
    expect(page.body).toContain('<button type="submit">Sign in</button>');
    // No inline script: only the provider's own same-origin files (the passkey buttons), as the CSP demands.
    const scripts = [...page.body.matchAll(/<script\b[^>]*>([^<]*)<\/script>/g)];
    for (const [tag, content] of scripts) {
      expect(tag).toMatch(/ src="\/oauth2\/default\/interaction\/script\/[a-z0-9-]+"/);
      expect(content).toBe('');
    }
    expect(page.body.match(/<script\b/g)?.length ?? 0).toBe(scripts.length);
    expect(page.headers['cache-control']).toBe('no-store');
  });

  it('says "Incorrect email or password." and keeps the email on wrong credentials', async () => {
    const { post } = await openSignIn();
    for (const fields of [
      { email: 'alice@example.com', password: 'wrong-password' },
      { email: 'nobody@example.com', password: 'Wonderland-42' },
    ]) {
      const response = await post(fields);
      expect(response.statusCode).toBe(401);
      expect(response.body).toContain('<div id="form-error" role="alert">Incorrect email or password.</div>');
      expect(response.body).toContain(`value="${fields.email}"`);
      expect(response.body).toContain('aria-describedby="form-error"');
    }
    const empty = await post({ email: '', password: '' });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('Enter your email and password.');
  });

  it('escapes what was typed', async () => {
    const { post } = await openSignIn();
    const response = await post({ email: '"><script>alert(1)</script>', password: 'x' });
    expect(response.body).not.toContain('<script>alert(1)');
    expect(response.body).toContain('value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
  });

  it('throttles an email after 10 failed attempts within 15 minutes', async () => {
    await t.app.directory.createUser({
      email: 'throttled@example.com',
      password: 'Right-Password-1',
      givenName: 'T',
      familyName: 'Hrottled',
      country: 'DE',
    });
    const { post } = await openSignIn();
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      expect((await post({ email: 'throttled@example.com', password: `wrong-${attempt}` })).statusCode).toBe(
        401,
      );
    }
    // Even the right password is refused now, with a clear message; other emails are unaffected.
    const refused = await post({ email: 'Throttled@Example.com', password: 'Right-Password-1' });
    expect(refused.statusCode).toBe(429);
    expect(refused.body).toContain(
      'Too many failed sign-in attempts for this email. Try again in 15 minutes.',
    );
    const other = await post({ email: 'alice@example.com', password: 'Wonderland-42' });
    expect(other.statusCode).toBe(303);
  });

  it('explains an expired or foreign sign-in page', async () => {
    const response = await t.app.inject('/oauth2/default/interaction/unknown-uid');
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('This sign-in page has expired');
    expect(response.body).toContain('<html lang="en">');
  });
});
