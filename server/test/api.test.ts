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

// isfederated, the update's answer and what the directory then holds, the body's refusals, federated users and
// another account's sub are the contract suite's (test/contract/), against both identity backends. Here: what the
// embedded provider adds.
describe('PUT /api/profile/:sub/update (embedded provider)', () => {
  it('the next ID token carries the saved profile', async () => {
    const response = await update(alice.token, alice.sub, { firstName: 'Alicia', country: 'FR' });
    expect(response.statusCode).toBe(200);
    const tokens = await tokensFor(t.app, ALICE);
    expect(
      JSON.parse(Buffer.from(tokens.id_token.split('.')[1] ?? '', 'base64url').toString()),
    ).toMatchObject({
      given_name: 'Alicia',
      name: 'Alicia Liddell',
      country: 'FR',
    });
    const back = await update(alice.token, alice.sub, { firstName: 'Alice', country: 'GB' });
    expect(back.statusCode).toBe(200);
  });
});

// No token, garbage and a swapped signature are the contract suite's (test/contract/errors.test.ts); here, the
// tokens only the embedded provider's key can make.
describe('bearer token checks on /api', () => {
  const url = () => `/api/profile/${alice.sub}/isfederated`;

  /** A token for Alice, of no live session, with one flaw (see mintAccessToken). */
  const flawed = (flaw: TokenFlaw) => () => mintAccessToken(t.app, alice.sub, { flaw });

  it.each([
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
