/** Okta mode: settings name another org, the embedded provider is off, tokens are checked against its JWKS. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTwice, startApp, tempDir, type TestApp } from './helpers.js';

let org: Server;
let orgUrl: string;
let privateKey: CryptoKey;
let keyRequests = 0;
let t: TestApp;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  privateKey = pair.privateKey;
  const jwks = {
    keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'okta-key-1', alg: 'RS256', use: 'sig' }],
  };
  // A stand-in for the Okta org's authorization server: only its key set is needed.
  org = createServer((req, res) => {
    if (req.url === '/oauth2/default/v1/keys') {
      keyRequests += 1;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(jwks));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => org.listen(0, 'localhost', resolve));
  orgUrl = `http://localhost:${(org.address() as AddressInfo).port}`;

  const dataDir = tempDir();
  const settings = path.join(dataDir, 'settings.json');
  writeFileSync(settings, JSON.stringify({ Domain: orgUrl, ClientId: '0oaPortalClient' }));
  t = await startApp({ SETTINGS_FILE: settings }, dataDir);
});

afterAll(async () => {
  await t.close();
  await new Promise((resolve) => org.close(resolve));
});

/** An access token as Okta issues it: sub is the login, uid the user id, scp the scopes. */
function oktaToken(
  claims: Record<string, unknown> = {},
  issuer = `${orgUrl}/oauth2/default`,
  login = 'pat@customer.example',
) {
  return new SignJWT({
    uid: '00uOktaUser123456789',
    scp: ['openid', 'profile', 'email'],
    cid: '0oaPortalClient',
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid: 'okta-key-1' })
    .setIssuer(issuer)
    .setAudience('api://default')
    .setSubject(login)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
}

describe('Okta mode', () => {
  it('has no embedded provider and no demo accounts', async () => {
    expect(t.config.embedded).toBe(false);
    expect((await t.app.inject('/oauth2/default/v1/keys')).statusCode).toBe(404);
    expect((await t.app.inject('/oauth2/default/.well-known/openid-configuration')).statusCode).toBe(404);
    expect(await t.app.directory.findByEmail('alice@example.com')).toBeUndefined();
    expect((await t.app.inject('/healthz')).json()).toMatchObject({ mode: 'okta' });
  });

  it('lets the shell reach the org from the page (CSP)', async () => {
    const csp = String((await t.app.inject('/healthz')).headers['content-security-policy']);
    expect(csp).toMatch(new RegExp(`connect-src [^;]*${orgUrl}`));
    expect(csp).toMatch(new RegExp(`frame-src [^;]*${orgUrl}`));
  });

  it('creates an unknown user on the first authenticated call and identifies callers by uid', async () => {
    const token = await oktaToken();
    const response = await t.app.inject({
      url: '/api/profile/00uOktaUser123456789/isfederated',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(200);
    expect(parseTwice(response.body)).toEqual({ isFederated: false });
    expect(keyRequests).toBe(1);
    expect(await t.app.directory.findById('00uOktaUser123456789')).toMatchObject({
      email: 'pat@customer.example',
    });

    const saved = await t.app.inject({
      method: 'PUT',
      url: '/api/profile/00uOktaUser123456789/update',
      headers: { authorization: `Bearer ${token}` },
      payload: { firstName: 'Pat', lastName: 'Customer', country: 'SE' },
    });
    expect(saved.statusCode).toBe(200);
    expect(parseTwice(saved.body)).toEqual({
      sub: '00uOktaUser123456789',
      email: 'pat@customer.example',
      firstName: 'Pat',
      lastName: 'Customer',
      country: 'SE',
    });

    // The path names the user id (the ID token's sub), not Okta's access-token sub (the login).
    const bySub = await t.app.inject({
      url: '/api/profile/pat@customer.example/isfederated',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(bySub.statusCode).toBe(403);
    // The key set is cached.
    expect(keyRequests).toBe(1);
  });

  it('takes the federated flag and names from the token when it carries them', async () => {
    const token = await oktaToken(
      { uid: '00uOktaFederated00001', isFederated: true, given_name: 'Fed', family_name: 'Erated' },
      undefined,
      'fed@partner.example',
    );
    const response = await t.app.inject({
      url: '/api/profile/00uOktaFederated00001/isfederated',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(parseTwice(response.body)).toEqual({ isFederated: true });
    expect(await t.app.directory.findById('00uOktaFederated00001')).toMatchObject({
      givenName: 'Fed',
      familyName: 'Erated',
    });
  });

  it('refuses tokens of another issuer', async () => {
    const token = await oktaToken({}, 'http://localhost:3000/oauth2/default');
    const response = await t.app.inject({
      url: '/api/profile/00uOktaUser123456789/isfederated',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.statusCode).toBe(401);
  });

  it('refuses a token of another application of the org (same audience), or without the openid scope, before any account is created', async () => {
    for (const [claims, error] of [
      [
        { uid: '00uOtherApp0000000001', cid: '0oaSomeOtherApp' },
        'The access token was issued to another application',
      ],
      [
        { uid: '00uOtherApp0000000001', cid: undefined },
        'The access token was issued to another application',
      ],
      [
        { uid: '00uOtherApp0000000001', scp: ['profile', 'email'] },
        'The access token lacks the openid scope',
      ],
    ] as const) {
      const response = await t.app.inject({
        url: '/api/profile/00uOtherApp0000000001/isfederated',
        headers: { authorization: `Bearer ${await oktaToken(claims)}` },
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ error, code: 'unauthorized' });
    }
    expect(await t.app.directory.findById('00uOtherApp0000000001')).toBeUndefined();
  });

  it('accepts the clients an operator allows (API_CLIENT_IDS) and the scope it requires (API_REQUIRED_SCOPE)', async () => {
    const dataDir = tempDir();
    const settings = path.join(dataDir, 'settings.json');
    writeFileSync(settings, JSON.stringify({ Domain: orgUrl, ClientId: '0oaPortalClient' }));
    const other = await startApp(
      {
        SETTINGS_FILE: settings,
        API_CLIENT_IDS: '0oaIntegratorPage, 0oaKiosk',
        API_REQUIRED_SCOPE: 'portal.account',
      },
      dataDir,
    );
    try {
      const call = async (claims: Record<string, unknown>) =>
        (
          await other.app.inject({
            url: '/api/profile/00uOktaUser123456789/isfederated',
            headers: { authorization: `Bearer ${await oktaToken(claims)}` },
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
