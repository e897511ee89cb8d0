/**
 * Issue 9, rows 7 and 8, at the embedded provider's edge (src/oidc/edge.ts):
 * - `X-Forwarded-Host: evil.example` (or `Host`) never reaches a URL the provider sends, and discovery is the same
 *   document whatever a client sends, so no cache can keep a poisoned one;
 * - anonymous /v1/authorize and /v1/token are limited per client address, and a rotating X-Forwarded-For does not
 *   help unless TRUST_PROXY says the sender is a proxy;
 * - `state` and `nonce` are capped before the provider stores an interaction.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_AUTHORIZE_PARAMS_LENGTH, MAX_STATE_LENGTH } from '../src/oidc/edge.js';
import { CLIENT_ID, pkcePair, SCOPES, startApp, tempDir, type TestApp } from './helpers.js';

const HTTPS_PORTAL = 'https://portal.example';
const DISCOVERY = '/oauth2/default/.well-known/openid-configuration';
const HOSTILE = { host: 'evil.example', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'http' };

/** Starts the embedded provider at `publicUrl` (its settings' Domain), with a clock the test moves. */
async function startAt(publicUrl: string, env: Record<string, string> = {}) {
  const dataDir = tempDir();
  const settings = path.join(dataDir, 'settings.json');
  writeFileSync(settings, JSON.stringify({ Domain: publicUrl, ClientId: CLIENT_ID }));
  const clock = { now: Date.now() };
  const t = await startApp({ PUBLIC_URL: publicUrl, SETTINGS_FILE: settings, ...env }, dataDir, {
    now: () => clock.now,
  });
  return { t, clock };
}

function authorizePath(origin: string, overrides: Record<string, string> = {}): string {
  return `/oauth2/default/v1/authorize?${authorizeParams(origin, overrides).toString()}`;
}

function authorizeParams(origin: string, overrides: Record<string, string> = {}): URLSearchParams {
  return new URLSearchParams({
    client_id: CLIENT_ID,
    response_type: 'code',
    scope: SCOPES,
    redirect_uri: `${origin}/login/callback`,
    state: 's'.repeat(64),
    nonce: 'n'.repeat(64),
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  });
}

async function interactionCount(app: FastifyInstance): Promise<number> {
  const row = await app.storage.sql.get<{ n: number }>(
    "SELECT COUNT(*) AS n FROM oidc_payloads WHERE model = 'Interaction'",
  );
  return row?.n ?? 0;
}

/** Every absolute URL in a JSON document. */
function urlsIn(value: unknown): string[] {
  if (typeof value === 'string') return /^https?:\/\//.test(value) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap(urlsIn);
  if (value && typeof value === 'object') return Object.values(value).flatMap(urlsIn);
  return [];
}

describe.each([
  ['an https PUBLIC_URL', HTTPS_PORTAL, {}],
  ['an https PUBLIC_URL behind a trusted proxy', HTTPS_PORTAL, { TRUST_PROXY: 'loopback' }],
  ['the development default', 'http://localhost:3000', {}],
])('the provider host is pinned to PUBLIC_URL, on %s', (_name, publicUrl, env) => {
  let t: TestApp;
  beforeAll(async () => {
    ({ t } = await startAt(publicUrl, env));
  });
  afterAll(async () => t.close());

  it('discovery names PUBLIC_URL in every URL, whatever Host and X-Forwarded-* say', async () => {
    const response = await t.app.inject({ url: DISCOVERY, headers: HOSTILE });
    expect(response.statusCode).toBe(200);
    const document = response.json<Record<string, unknown>>();
    expect(document.jwks_uri).toBe(`${publicUrl}/oauth2/default/v1/keys`);
    const urls = urlsIn(document);
    expect(urls.length).toBeGreaterThan(5);
    for (const url of urls) expect(url.startsWith(`${publicUrl}/`), url).toBe(true);
    expect(response.body).not.toContain('evil.example');
  });

  it('answers the same discovery document before and after a hostile request (nothing to poison)', async () => {
    const before = await t.app.inject(DISCOVERY);
    const hostile = await t.app.inject({ url: DISCOVERY, headers: HOSTILE });
    const after = await t.app.inject(DISCOVERY);
    expect(hostile.body).toBe(before.body);
    expect(after.body).toBe(before.body);
  });

  it('sends the browser to interaction pages and back on PUBLIC_URL only', async () => {
    const response = await t.app.inject({ url: authorizePath(publicUrl), headers: HOSTILE });
    expect(response.statusCode).toBe(303);
    expect(String(response.headers.location)).not.toContain('evil.example');
  });
});

describe('per-address limits at the provider (AUTHORIZE_RATE_LIMIT, TOKEN_RATE_LIMIT)', () => {
  let t: TestApp;
  let clock: { now: number };
  beforeAll(async () => {
    ({ t, clock } = await startAt(HTTPS_PORTAL, { AUTHORIZE_RATE_LIMIT: '3', TOKEN_RATE_LIMIT: '2' }));
  });
  afterAll(async () => t.close());

  const authorize = (remoteAddress: string, headers: InjectOptions['headers'] = {}) =>
    t.app.inject({ url: authorizePath(HTTPS_PORTAL), remoteAddress, headers });

  it('stores at most the limit of interactions per address and minute, then answers 429 with Retry-After', async () => {
    const before = await interactionCount(t.app);
    // An attacker rotating X-Forwarded-For: with TRUST_PROXY unset it is one address.
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        authorize('198.51.100.1', { 'x-forwarded-for': `203.0.113.${index}` }),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    expect(statuses.filter((status) => status === 303)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(7);
    expect((await interactionCount(t.app)) - before).toBe(3);

    const refused = answers.find((answer) => answer.statusCode === 429);
    expect(refused?.headers['content-type']).toMatch(/^text\/html/);
    expect(Number(refused?.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused?.headers['retry-after'])).toBeLessThanOrEqual(60);
    expect(refused?.body).toContain('Too many sign-in requests');

    // Another address is not affected, and the address may try again once its minute has passed.
    expect((await authorize('198.51.100.2')).statusCode).toBe(303);
    clock.now += 60_000;
    expect((await authorize('198.51.100.1')).statusCode).toBe(303);
  });

  it('does not count a sign-in resuming its own authorization request', async () => {
    const address = '198.51.100.3';
    for (let call = 0; call < 3; call += 1) expect((await authorize(address)).statusCode).toBe(303);
    const resume = await t.app.inject({
      url: '/oauth2/default/v1/authorize/some-interaction',
      remoteAddress: address,
    });
    expect(resume.statusCode).not.toBe(429);
  });

  it('limits token requests per address with an OAuth and Okta error shape the SPA can read (CORS)', async () => {
    const token = () =>
      t.app.inject({
        method: 'POST',
        url: '/oauth2/default/v1/token',
        remoteAddress: '198.51.100.4',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: HTTPS_PORTAL,
          'x-forwarded-for': `203.0.113.${Math.floor(Math.random() * 250)}`,
        },
        payload: new URLSearchParams({
          grant_type: 'refresh_token',
          client_id: CLIENT_ID,
          refresh_token: 'not-a-token',
        }).toString(),
      });
    expect((await token()).statusCode).toBe(400);
    expect((await token()).statusCode).toBe(400);
    const refused = await token();
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['access-control-allow-origin']).toBe(HTTPS_PORTAL);
    expect(refused.json()).toMatchObject({
      error: 'temporarily_unavailable',
      error_description: expect.stringMatching(/^Too many token requests/),
      errorCode: 'E0000047',
      errorSummary: expect.any(String),
    });
  });
});

describe('TRUST_PROXY decides whose X-Forwarded-For counts at the provider', () => {
  it('with the proxy trusted, each forwarded client has its own count', async () => {
    const { t } = await startAt(HTTPS_PORTAL, { AUTHORIZE_RATE_LIMIT: '1', TRUST_PROXY: '127.0.0.1' });
    try {
      const from = (client: string) =>
        t.app.inject({ url: authorizePath(HTTPS_PORTAL), headers: { 'x-forwarded-for': client } });
      expect((await from('203.0.113.1')).statusCode).toBe(303);
      expect((await from('203.0.113.2')).statusCode).toBe(303);
      expect((await from('203.0.113.1')).statusCode).toBe(429);
    } finally {
      await t.close();
    }
  });
});

describe('state and nonce are capped before an interaction is stored', () => {
  let t: TestApp;
  beforeAll(async () => {
    ({ t } = await startAt('http://localhost:3000'));
  });
  afterAll(async () => t.close());

  const origin = 'http://localhost:3000';

  it.each(['state', 'nonce'])('refuses a %s longer than the cap with 400 invalid_request', async (name) => {
    const before = await interactionCount(t.app);
    const response = await t.app.inject(authorizePath(origin, { [name]: 'x'.repeat(MAX_STATE_LENGTH + 1) }));
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain('invalid_request');
    expect(response.body).toContain(name);
    expect(await interactionCount(t.app)).toBe(before);
  });

  it('accepts a state and nonce of exactly the cap', async () => {
    const at = 'x'.repeat(MAX_STATE_LENGTH);
    expect((await t.app.inject(authorizePath(origin, { state: at, nonce: at }))).statusCode).toBe(303);
  });

  it('refuses an authorization request longer than the cap in all', async () => {
    const before = await interactionCount(t.app);
    const response = await t.app.inject(
      authorizePath(origin, { login_hint: 'x'.repeat(MAX_AUTHORIZE_PARAMS_LENGTH) }),
    );
    expect(response.statusCode).toBe(400);
    expect(response.body).toContain('invalid_request');
    expect(await interactionCount(t.app)).toBe(before);
  });

  it('checks a form-posted authorization request too, and hands a good one to the provider', async () => {
    const post = (params: URLSearchParams) =>
      t.app.inject({
        method: 'POST',
        url: '/oauth2/default/v1/authorize',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: params.toString(),
      });
    const before = await interactionCount(t.app);
    const long = await post(authorizeParams(origin, { state: 'x'.repeat(MAX_STATE_LENGTH + 1) }));
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain('invalid_request');
    expect(await interactionCount(t.app)).toBe(before);

    const good = await post(authorizeParams(origin));
    expect(good.statusCode).toBe(303);
    expect(String(good.headers.location)).toMatch(/^\/oauth2\/default\/interaction\//);
    expect(await interactionCount(t.app)).toBe(before + 1);
  });
});

// AddressLimiter itself (the counts in storage, shared by instances, pruned): request-windows.test.ts.
