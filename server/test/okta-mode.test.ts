/**
 * Okta mode: settings name another org (the Okta org stand-in), the embedded provider is off, tokens are checked
 * against the org's JWKS, and the caller is the Okta user the token's `uid` names: read from Okta, never created or
 * copied into the portal's `users` table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTwice, type TestApp } from './helpers.js';
import type { OktaUserState } from './support/okta-org/index.js';
import { useOktaOrg } from './support/okta-org/vitest.js';
import { countUsers, oktaAuthorizationServer, startOktaPortal } from './support/okta-portal.js';

const server = oktaAuthorizationServer();
const org = useOktaOrg({ jwks: server.jwks });
let t: TestApp;
let pat: OktaUserState & { login: string };

beforeAll(async () => {
  const user = org().addUser({
    profile: {
      login: 'pat@customer.example',
      email: 'pat@customer.example',
      firstName: 'Pat',
      lastName: 'Customer',
      countryCode: 'SE',
    },
    password: 'Correct-Horse-1',
  });
  pat = { ...user, login: 'pat@customer.example' };
  t = await startOktaPortal(org());
});

afterAll(async () => {
  await t?.close();
});

const isFederated = async (sub: string, token: string) =>
  t.app.inject({ url: `/api/profile/${sub}/isfederated`, headers: { authorization: `Bearer ${token}` } });

/** The org's requests of this kind since `mark`. */
const requestsSince = (mark: number, operationId: string) =>
  org()
    .requests()
    .slice(mark)
    .filter((r) => r.operationId === operationId);

describe('Okta mode', () => {
  it('has no embedded provider, no demo accounts and the okta identity backend', async () => {
    expect(t.config).toMatchObject({ embedded: false, identityBackend: 'okta' });
    expect(t.app.identity.kind).toBe('okta');
    expect((await t.app.inject('/oauth2/default/v1/keys')).statusCode).toBe(404);
    expect((await t.app.inject('/oauth2/default/.well-known/openid-configuration')).statusCode).toBe(404);
    // No "Forgot password" of the portal's: Okta's own sign-in has its reset (issue 20).
    expect((await t.app.inject('/oauth2/default/reset-password')).statusCode).toBe(404);
    expect(t.app.passwordResets).toBeUndefined();
    expect(await countUsers(t)).toBe(0);
    expect((await t.app.inject('/healthz')).json()).toMatchObject({ mode: 'okta' });
  });

  it('lets the shell reach the org from the page (CSP)', async () => {
    const csp = String((await t.app.inject('/healthz')).headers['content-security-policy']);
    expect(csp).toMatch(new RegExp(`connect-src [^;]*${org().url}`));
    expect(csp).toMatch(new RegExp(`frame-src [^;]*${org().url}`));
  });

  it("identifies the caller by the token's uid and reads the user from Okta, writing no users row", async () => {
    const token = await server.token(org(), pat);
    const mark = org().requests().length;
    const response = await isFederated(pat.id, token);
    expect(response.statusCode).toBe(200);
    expect(parseTwice(response.body)).toEqual({ isFederated: false });
    expect(requestsSince(mark, 'getUser').length).toBeGreaterThan(0);
    expect(await countUsers(t)).toBe(0);

    // The path names the user id (the ID token's sub), not Okta's access-token sub (the login).
    const byLogin = await isFederated(pat.login, token);
    expect(byLogin.statusCode).toBe(403);
    expect(byLogin.json()).toMatchObject({ code: 'forbidden_sub' });
  });

  it("takes isFederated from the Okta user (its credentials provider), not from the token's claims", async () => {
    const federated = org().addUser({
      profile: {
        login: 'fed@partner.example',
        email: 'fed@partner.example',
        firstName: 'Fed',
        lastName: 'Erated',
      },
      provider: { type: 'FEDERATION', name: 'FEDERATION' },
    });
    const fed = { id: federated.id, login: 'fed@partner.example' };
    const answer = await isFederated(fed.id, await server.token(org(), fed));
    expect(parseTwice(answer.body)).toEqual({ isFederated: true });
    // A token claiming federation does not make an Okta user federated.
    const claimed = await isFederated(pat.id, await server.token(org(), pat, { isFederated: true }));
    expect(parseTwice(claimed.body)).toEqual({ isFederated: false });
    expect(await countUsers(t)).toBe(0);
  });

  it('answers 401 for a user Okta does not know, and creates nobody', async () => {
    const stranger = { id: '00uNotInTheOrg000001', login: 'stranger@customer.example' };
    const response = await isFederated(stranger.id, await server.token(org(), stranger));
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({ error: 'The signed-in user no longer exists', code: 'unauthorized' });
    expect(await countUsers(t)).toBe(0);
  });

  it('refuses tokens of another issuer', async () => {
    const token = await server.token(org(), pat, {}, 'http://localhost:3000/oauth2/default');
    expect((await isFederated(pat.id, token)).statusCode).toBe(401);
  });

  it('refuses a token of another application of the org (same audience), or without the openid scope, without asking Okta', async () => {
    const mark = org().requests().length;
    for (const [claims, error] of [
      [{ cid: '0oaSomeOtherApp' }, 'The access token was issued to another application'],
      [{ cid: undefined }, 'The access token was issued to another application'],
      [{ scp: ['profile', 'email'] }, 'The access token lacks the openid scope'],
    ] as const) {
      const response = await isFederated(pat.id, await server.token(org(), pat, claims));
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error, code: 'unauthorized' });
    }
    expect(org().requests().slice(mark)).toEqual([]);
  });

  it('accepts the clients an operator allows (API_CLIENT_IDS) and the scope it requires (API_REQUIRED_SCOPE)', async () => {
    const other = await startOktaPortal(org(), {
      API_CLIENT_IDS: '0oaIntegratorPage, 0oaKiosk',
      API_REQUIRED_SCOPE: 'portal.account',
    });
    try {
      const call = async (claims: Record<string, unknown>) =>
        (
          await other.app.inject({
            url: `/api/profile/${pat.id}/isfederated`,
            headers: { authorization: `Bearer ${await server.token(org(), pat, claims)}` },
          })
        ).json<unknown>();
      const scopes = { scp: ['openid', 'portal.account'] };
      expect(parseTwice(JSON.stringify(await call({ ...scopes, cid: '0oaIntegratorPage' })))).toEqual({
        isFederated: false,
      });
      expect(await call({ ...scopes, cid: '0oaSomeOtherApp' })).toEqual({
        error: 'The access token was issued to another application',
        code: 'unauthorized',
      });
      expect(await call({ cid: '0oaPortalClient' })).toEqual({
        error: 'The access token lacks the portal.account scope',
        code: 'unauthorized',
      });
    } finally {
      await other.close();
    }
  });
});
