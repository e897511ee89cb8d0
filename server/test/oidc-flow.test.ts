import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  jwtVerify,
  type JWK,
} from 'jose';
import { describe, expect, it } from 'vitest';
import { ACCESS_TOKEN_TTL_SECONDS } from '../src/oidc/provider.js';
import {
  ALICE,
  CLIENT_ID,
  exchangeCode,
  PORTAL,
  parseTwice,
  refresh,
  SAM,
  signIn,
  startApp,
  tempDir,
  tokensFor,
  appForBlock,
} from './helpers.js';

const ISSUER = `${PORTAL}/oauth2/default`;

const t = appForBlock(() => startApp());

async function jwks() {
  const response = await t.app.inject('/oauth2/default/v1/keys');
  expect(response.statusCode).toBe(200);
  return response.json<{ keys: JWK[] }>();
}

describe('the embedded provider, driven through its own endpoints', () => {
  it('publishes Okta-style routes in its discovery document', async () => {
    const response = await t.app.inject('/oauth2/default/.well-known/openid-configuration');
    expect(response.statusCode).toBe(200);
    const discovery = response.json<Record<string, unknown>>();
    expect(discovery.issuer).toBe(ISSUER);
    for (const [key, route] of Object.entries({
      authorization_endpoint: '/v1/authorize',
      token_endpoint: '/v1/token',
      jwks_uri: '/v1/keys',
      userinfo_endpoint: '/v1/userinfo',
      end_session_endpoint: '/v1/logout',
      revocation_endpoint: '/v1/revoke',
      introspection_endpoint: '/v1/introspect',
    })) {
      expect(new URL(String(discovery[key])).pathname, key).toBe(`/oauth2/default${route}`);
    }
    expect(discovery.id_token_signing_alg_values_supported).toEqual(['RS256']);
    expect(discovery.code_challenge_methods_supported).toEqual(['S256']);
    expect(discovery.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'profile', 'email', 'phone']),
    );
  });

  it('serves one RS256 key whose kid is its JWK thumbprint, and keeps it across restarts', async () => {
    const { keys } = await jwks();
    expect(keys).toHaveLength(1);
    const [key] = keys;
    expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    expect(key).not.toHaveProperty('d');
    expect(key?.kid).toBe(await calculateJwkThumbprint({ kty: 'RSA', n: key?.n, e: key?.e }, 'sha256'));

    // The private key is the key ring's, in the database (shared by every instance), not a file of one machine;
    // sealed there with KEY_RING_ENCRYPTION_KEY (its kid the additional data).
    const stored = await t.app.database.get<{ material: string }>(
      'SELECT material FROM key_ring WHERE kid = ?',
      [key?.kid ?? ''],
    );
    const material = t.app.atRestSealing.keyRing.open(stored?.material ?? '', key?.kid ?? '');
    expect((JSON.parse(material) as JWK).n).toBe(key?.n);

    // A second server on the same DATA_DIR signs with the same key.
    const dir = tempDir();
    const first = await startApp({}, dir);
    const firstKid = (await first.app.inject('/oauth2/default/v1/keys')).json<{ keys: JWK[] }>().keys[0]?.kid;
    await first.app.close();
    const second = await startApp({}, dir);
    const secondKid = (await second.app.inject('/oauth2/default/v1/keys')).json<{ keys: JWK[] }>().keys[0]
      ?.kid;
    await second.close();
    expect(secondKid).toBe(firstKid);
  });

  it('issues RS256 tokens with the directory claims, and the API accepts the access token', async () => {
    const tokens = await tokensFor(t.app, ALICE);
    expect(tokens.token_type).toBe('Bearer');
    expect(tokens.expires_in).toBe(ACCESS_TOKEN_TTL_SECONDS);
    // Refresh token without offline_access (okta-auth-js never sends prompt=consent).
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(tokens.scope.split(' ')).not.toContain('offline_access');

    const keySet = createLocalJWKSet(await jwks());
    const { kid } = (await jwks()).keys[0] ?? {};

    const idHeader = decodeProtectedHeader(tokens.id_token);
    expect(idHeader).toMatchObject({ alg: 'RS256', kid });
    const { payload: id } = await jwtVerify(tokens.id_token, keySet, { issuer: ISSUER, audience: CLIENT_ID });
    expect(id).toMatchObject({
      sub: expect.stringMatching(/^00u[0-9A-Za-z]{17}$/),
      name: 'Alice Liddell',
      given_name: 'Alice',
      family_name: 'Liddell',
      email: 'alice@example.com',
      country: 'GB',
      isFederated: false,
      // How the user signed in, so a relying party can tell a 2-step sign-in (here: the password only).
      amr: ['pwd'],
    });
    expect((id.exp ?? 0) - (id.iat ?? 0)).toBe(3600);

    const atHeader = decodeProtectedHeader(tokens.access_token);
    expect(atHeader).toMatchObject({ alg: 'RS256', kid });
    const { payload: access } = await jwtVerify(tokens.access_token, keySet, {
      issuer: ISSUER,
      audience: 'api://default',
    });
    expect(access).toMatchObject({
      sub: id.sub,
      uid: id.sub,
      client_id: CLIENT_ID,
      scope: 'openid profile email phone',
      sid: expect.any(String),
      gid: expect.any(String),
    });
    // Short-lived (10 minutes): the shell renews with its refresh token.
    expect((access.exp ?? 0) - (access.iat ?? 0)).toBe(ACCESS_TOKEN_TTL_SECONDS);

    const response = await t.app.inject({
      url: `/api/profile/${id.sub}/isfederated`,
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(response.statusCode).toBe(200);
    expect(parseTwice(response.body)).toEqual({ isFederated: false });
  });

  it('marks the federated user in the ID token', async () => {
    const tokens = await tokensFor(t.app, SAM);
    expect(decodeJwt(tokens.id_token)).toMatchObject({
      email: 'sam@partner.example',
      isFederated: true,
      given_name: 'Sam',
      family_name: 'Taylor',
      country: 'US',
    });
  });

  it('shows a saved profile in the ID token obtained by refreshing, with the same sid', async () => {
    const dir = tempDir();
    const own = await startApp({}, dir);
    try {
      const tokens = await tokensFor(own.app, ALICE);
      const sub = decodeJwt(tokens.id_token).sub;
      const saved = await own.app.inject({
        method: 'PUT',
        url: `/api/profile/${sub}/update`,
        headers: { authorization: `Bearer ${tokens.access_token}` },
        payload: { lastName: 'Hargreaves', country: 'FR' },
      });
      expect(saved.statusCode).toBe(200);

      const renewed = await refresh(own.app, tokens.refresh_token ?? '');
      expect(decodeJwt(renewed.id_token)).toMatchObject({
        sub,
        family_name: 'Hargreaves',
        name: 'Alice Hargreaves',
        country: 'FR',
      });
      // Rotation: a new refresh token; the old one is spent.
      expect(renewed.refresh_token).toEqual(expect.any(String));
      expect(renewed.refresh_token).not.toBe(tokens.refresh_token);
      // sid names the provider session and survives the refresh.
      expect(decodeJwt(renewed.access_token).sid).toBe(decodeJwt(tokens.access_token).sid);

      // And a fresh sign-in shows it too.
      const again = await tokensFor(own.app, ALICE);
      expect(decodeJwt(again.id_token)).toMatchObject({ family_name: 'Hargreaves', country: 'FR' });
    } finally {
      await own.close();
    }
  });

  it('refuses a code exchange without the PKCE verifier', async () => {
    const result = await signIn(t.app, ALICE);
    const response = await t.app.inject({
      method: 'POST',
      url: '/oauth2/default/v1/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: CLIENT_ID,
        code: result.callback.searchParams.get('code') ?? '',
        redirect_uri: `${PORTAL}/login/callback`,
      }).toString(),
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses an authorization request without PKCE', async () => {
    const params = new URLSearchParams({
      client_id: CLIENT_ID,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: `${PORTAL}/login/callback`,
      state: 'x',
    });
    const response = await t.app.inject(`/oauth2/default/v1/authorize?${params.toString()}`);
    expect(response.statusCode).toBe(303);
    const location = new URL(String(response.headers.location));
    expect(location.searchParams.get('error')).toBe('invalid_request');
  });

  it('lets a trusted origin sign in with its own /login/callback, and refuses other redirect URIs', async () => {
    const result = await signIn(t.app, ALICE, { origin: 'http://localhost:3001' });
    expect(result.callback.origin).toBe('http://localhost:3001');
    expect(result.callback.pathname).toBe('/login/callback');
    const tokens = await exchangeCode(t.app, result, 'http://localhost:3001');
    expect(tokens.access_token).toEqual(expect.any(String));

    const bad = await t.app.inject(
      `/oauth2/default/v1/authorize?${new URLSearchParams({
        client_id: CLIENT_ID,
        response_type: 'code',
        scope: 'openid',
        redirect_uri: 'http://localhost:4444/login/callback',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      }).toString()}`,
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.headers.location).toBeUndefined();
    expect(bad.body).toContain('redirect_uri');
  });
});
