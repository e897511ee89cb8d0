import { readFileSync } from 'node:fs';
import { settingsSchema } from 'shared-auth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALICE,
  mintAccessToken,
  PORTAL,
  sessionClaimsOf,
  parseTwice,
  SAM,
  startApp,
  subOf,
  tokensFor,
  type TestApp,
  type TokenFlaw,
} from './helpers.js';

let t: TestApp;
let alice: { sub: string; token: string };
let sam: { sub: string; token: string };

beforeAll(async () => {
  t = await startApp();
  const [a, s] = [await tokensFor(t.app, ALICE), await tokensFor(t.app, SAM)];
  alice = { sub: subOf(a.id_token), token: a.access_token };
  sam = { sub: subOf(s.id_token), token: s.access_token };
});
afterAll(async () => t.close());

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function update(token: string, sub: string, payload: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'PUT',
    url: `/api/profile/${sub}/update`,
    headers: { ...bearer(token), 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

describe('GET /api/clientConfiguration/getSettings', () => {
  it('answers the settings file as JSON text holding JSON, without a token', async () => {
    const response = await t.app.inject('/api/clientConfiguration/getSettings');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(typeof response.json()).toBe('string');
    const file = settingsSchema.parse(JSON.parse(readFileSync(t.config.SETTINGS_FILE, 'utf8')));
    expect(parseTwice(response.body)).toEqual(file);
    expect(parseTwice(response.body)).toMatchObject({ Domain: PORTAL, ClientId: 'account-portal' });
  });

  it('allows CORS from trusted origins only', async () => {
    const trusted = await t.app.inject({
      url: '/api/clientConfiguration/getSettings',
      headers: { origin: 'http://localhost:3001' },
    });
    expect(trusted.headers['access-control-allow-origin']).toBe('http://localhost:3001');
    const untrusted = await t.app.inject({
      url: '/api/clientConfiguration/getSettings',
      headers: { origin: 'http://localhost:4444' },
    });
    expect(untrusted.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await t.app.inject({
      method: 'OPTIONS',
      url: `/api/profile/${alice.sub}/update`,
      headers: {
        origin: 'http://localhost:3100',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'authorization,content-type',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('http://localhost:3100');
    expect(preflight.headers['access-control-allow-methods']).toContain('PUT');
    expect(preflight.headers['access-control-allow-headers']).toBe('authorization,content-type');
  });
});

describe('GET /api/profile/:sub/isfederated', () => {
  it('answers for the caller', async () => {
    const a = await t.app.inject({
      url: `/api/profile/${alice.sub}/isfederated`,
      headers: bearer(alice.token),
    });
    expect(a.statusCode).toBe(200);
    expect(parseTwice(a.body)).toEqual({ isFederated: false });
    const s = await t.app.inject({ url: `/api/profile/${sam.sub}/isfederated`, headers: bearer(sam.token) });
    expect(parseTwice(s.body)).toEqual({ isFederated: true });
  });

  it("refuses another user's sub with 403", async () => {
    const response = await t.app.inject({
      url: `/api/profile/${sam.sub}/isfederated`,
      headers: bearer(alice.token),
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: 'You can only access your own account', code: 'forbidden_sub' });
  });
});

describe('PUT /api/profile/:sub/update', () => {
  it('saves the changed fields and answers the stored profile', async () => {
    const response = await update(alice.token, alice.sub, { firstName: '  Alicia ', country: 'FR' });
    expect(response.statusCode).toBe(200);
    expect(parseTwice(response.body)).toEqual({
      sub: alice.sub,
      email: 'alice@example.com',
      firstName: 'Alicia',
      lastName: 'Liddell',
      country: 'FR',
    });
    // Persisted: in the database, and in the next ID token.
    const row = await t.app.storage.sql.get(
      'SELECT given_name, family_name, country FROM users WHERE id = ?',
      [alice.sub],
    );
    expect(row).toEqual({ given_name: 'Alicia', family_name: 'Liddell', country: 'FR' });
    const tokens = await tokensFor(t.app, ALICE);
    expect(
      JSON.parse(Buffer.from(tokens.id_token.split('.')[1] ?? '', 'base64url').toString()),
    ).toMatchObject({
      given_name: 'Alicia',
      name: 'Alicia Liddell',
      country: 'FR',
    });

    const back = await update(alice.token, alice.sub, {
      firstName: 'Alice',
      lastName: 'Liddell',
      country: 'GB',
    });
    expect(parseTwice(back.body)).toMatchObject({ firstName: 'Alice', lastName: 'Liddell', country: 'GB' });
  });

  it('accepts names of exactly 50 characters and real-world punctuation', async () => {
    const response = await update(alice.token, alice.sub, { lastName: `O'Brien-${'é'.repeat(42)}` });
    expect(response.statusCode).toBe(200);
    expect(parseTwice(response.body)).toMatchObject({ lastName: `O'Brien-${'é'.repeat(42)}` });
    await update(alice.token, alice.sub, { lastName: 'Liddell' });
  });

  it('refuses federated users with 403', async () => {
    const response = await update(sam.token, sam.sub, { firstName: 'Samuel' });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({
      error: 'Federated users cannot edit their profile',
      code: 'federated_user',
    });
    expect((await t.app.directory.findById(sam.sub))?.givenName).toBe('Sam');
  });

  it("refuses another user's sub with 403 and changes nothing", async () => {
    const response = await update(alice.token, sam.sub, { firstName: 'Mallory' });
    expect(response.statusCode).toBe(403);
    expect((await t.app.directory.findById(sam.sub))?.givenName).toBe('Sam');
  });

  it.each([
    ['email', { email: 'new@example.com' }, 'Email cannot be changed'],
    ['email with other fields', { firstName: 'A', email: 'new@example.com' }, 'Email cannot be changed'],
    ['an unknown key', { nickname: 'Al' }, 'Unknown field: nickname'],
    ['an empty object', {}, 'Nothing to update'],
    ['an empty first name', { firstName: '' }, 'First name must not be empty'],
    ['a blank last name', { lastName: '   ' }, 'Last name must not be empty'],
    ['51 characters', { firstName: 'x'.repeat(51) }, 'First name must be at most 50 characters'],
    ['a control character', { lastName: 'Lid\u0007dell' }, 'Last name must not contain control characters'],
    ['a newline', { firstName: 'Al\nice' }, 'First name must not contain control characters'],
    ['an unknown country', { country: 'XX' }, 'Country must be one of the listed countries'],
    ['a lower-case country', { country: 'gb' }, 'Country must be one of the listed countries'],
    ['a country of the wrong type', { country: 44 }, 'Country must be a two-letter country code'],
    ['a name of the wrong type', { firstName: 42 }, 'First name must be text'],
    ['null', null, 'The body must be a JSON object'],
    ['an array', [{ firstName: 'A' }], 'The body must be a JSON object'],
    ['a string', '"Alice"', 'The body must be a JSON object'],
    ['malformed JSON', '{"firstName": "Al', 'The request body is not valid JSON'],
  ])('refuses %s with 400 and a clear message', async (_name, payload, message) => {
    const response = await update(alice.token, alice.sub, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: message, code: 'invalid_request' });
  });

  it('refuses other bad bodies without a 500', async () => {
    const empty = await t.app.inject({
      method: 'PUT',
      url: `/api/profile/${alice.sub}/update`,
      headers: { ...bearer(alice.token), 'content-type': 'application/json' },
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toHaveProperty('error');

    const text = await update(alice.token, alice.sub, 'firstName=Al', { 'content-type': 'text/plain' });
    expect(text.statusCode).toBe(400);

    const xml = await update(alice.token, alice.sub, '<a/>', { 'content-type': 'application/xml' });
    expect(xml.statusCode).toBe(415);
    expect(xml.json()).toEqual({
      error: 'Send the request body as application/json',
      code: 'unsupported_media_type',
    });

    const huge = await update(alice.token, alice.sub, { firstName: 'x'.repeat(20_000) });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toEqual({ error: 'The request body is too large', code: 'body_too_large' });

    expect(await t.app.directory.findById(alice.sub)).toMatchObject({ givenName: 'Alice', country: 'GB' });
  });
});

describe('bearer token checks on /api', () => {
  const url = () => `/api/profile/${alice.sub}/isfederated`;

  it('answers 401 with WWW-Authenticate: Bearer when no token is sent', async () => {
    for (const headers of [{}, { authorization: 'Basic YWxpY2U6cHc=' }, { authorization: 'Bearer' }]) {
      const response = await t.app.inject({ url: url(), headers });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.json()).toEqual({ error: expect.stringContaining('Sign in'), code: 'unauthorized' });
    }
    const put = await t.app.inject({
      method: 'PUT',
      url: `/api/profile/${alice.sub}/update`,
      payload: { a: 1 },
    });
    expect(put.statusCode).toBe(401);
  });

  /** A token for Alice, of no live session, with one flaw (see mintAccessToken). */
  const flawed = (flaw: TokenFlaw) => () => mintAccessToken(t.app, alice.sub, { flaw });

  it.each([
    ['garbage', async () => 'not-a-jwt', 'The access token is not valid'],
    ['a wrong signature', flawed('wrong-signature'), 'The access token signature is not valid'],
    ['an expired token', flawed('expired'), 'The access token has expired'],
    ['a wrong issuer', flawed('wrong-issuer'), 'The access token was issued by another issuer'],
    ['a wrong audience', flawed('wrong-audience'), 'The access token is not meant for this API'],
    [
      'a symmetric algorithm',
      flawed('symmetric-alg'),
      'The access token uses a signing algorithm that is not allowed',
    ],
    [
      'an unsigned token (alg none)',
      flawed('unsigned'),
      'The access token uses a signing algorithm that is not allowed',
    ],
    [
      "a token of another application of the same provider (Okta's default audience is shared)",
      () => mintAccessToken(t.app, alice.sub, { flaw: 'other-client', claims: sessionClaimsOf(alice.token) }),
      'The access token was issued to another application',
    ],
    [
      'a token without the openid scope',
      () => mintAccessToken(t.app, alice.sub, { flaw: 'no-scope', claims: sessionClaimsOf(alice.token) }),
      'The access token lacks the openid scope',
    ],
    [
      'a well-signed token that names no live sign-in session',
      () => mintAccessToken(t.app, alice.sub),
      'The sign-in session of this access token has ended; sign in again',
    ],
    [
      "a well-signed token naming another account's session",
      () => mintAccessToken(t.app, alice.sub, { claims: sessionClaimsOf(sam.token) }),
      'The sign-in session of this access token has ended; sign in again',
    ],
  ])('answers 401 for %s', async (_name, make, message) => {
    const response = await t.app.inject({ url: url(), headers: bearer(await make()) });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    expect(response.json()).toEqual({ error: message, code: 'unauthorized' });
  });

  it('accepts a well-formed token signed by the provider key, of a live session (the minting helper is sound)', async () => {
    const response = await t.app.inject({
      url: url(),
      headers: bearer(await mintAccessToken(t.app, alice.sub, { claims: sessionClaimsOf(alice.token) })),
    });
    expect(response.statusCode).toBe(200);
  });

  it('answers 401 for a valid token of a user who is no longer in the directory', async () => {
    const gone = await t.app.directory.createUser({
      email: 'leaving@example.org',
      password: 'Leaving-Soon-42',
      givenName: 'Lee',
      familyName: 'Ving',
      country: 'GB',
    });
    const tokens = await tokensFor(t.app, { email: gone.email, password: 'Leaving-Soon-42' });
    await t.app.storage.sql.run('DELETE FROM users WHERE id = ?', [gone.id]);
    const response = await t.app.inject({
      url: `/api/profile/${gone.id}/isfederated`,
      headers: bearer(tokens.access_token),
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'The signed-in user no longer exists', code: 'unauthorized' });
  });
});

describe('unknown routes and methods', () => {
  it('answers 404 with an error field', async () => {
    for (const [method, url] of [
      ['GET', '/api/nothing-here'],
      ['GET', `/api/profile/${alice.sub}/unknown`],
      ['POST', '/api/clientConfiguration/getSettings'],
      ['DELETE', '/nowhere'],
    ] as const) {
      const response = await t.app.inject({ method, url, headers: bearer(alice.token) });
      expect(response.statusCode, `${method} ${url}`).toBe(404);
      expect(response.json()).toEqual({ error: expect.stringContaining('Not found'), code: 'not_found' });
    }
  });
});
