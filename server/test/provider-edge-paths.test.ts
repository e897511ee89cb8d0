/**
 * Issue 18, item 3, at the embedded provider's edge (src/oidc/edge.ts), over a real HTTP server on loopback (inject()
 * normalises some paths, and shows no connection reset):
 * - every path under the issuer that is not exactly a served route is 404, so no variant the provider's router
 *   accepts (case, trailing or doubled slash, percent-encoding, `;`, dot segments, the mount's own case) is served
 *   past the per-address limits or the state/nonce/length caps; HEAD is an authorization request too;
 * - stored interactions are bounded per client (an IPv4 address or an IPv6 /64) and in total;
 * - oversized bodies on the provider's POST endpoints are 413 in OAuth's error shape, and the connection is not
 *   reset (a 64 KiB /v1/revoke body among them).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  INTERACTION_ROW_BYTES,
  INTERACTIONS_PER_CLIENT,
  MAX_AUTHORIZE_PARAMS_LENGTH,
  MAX_LIVE_INTERACTIONS,
  MAX_PROVIDER_BODY_BYTES,
  MAX_STATE_LENGTH,
} from '../src/oidc/edge.js';
import { CLIENT_ID, pkcePair, PORTAL, SCOPES, startApp, tempDir, type TestApp } from './helpers.js';

const MOUNT = '/oauth2/default';

function authorizeQuery(overrides: Record<string, string> = {}): string {
  return new URLSearchParams({
    client_id: CLIENT_ID,
    response_type: 'code',
    scope: SCOPES,
    redirect_uri: `${PORTAL}/login/callback`,
    state: 's'.repeat(64),
    nonce: 'n'.repeat(64),
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    ...overrides,
  }).toString();
}

async function interactionCount(app: FastifyInstance): Promise<number> {
  const row = await app.storage.sql.get<{ n: number | string }>(
    "SELECT COUNT(*) AS n FROM oidc_payloads WHERE model = 'Interaction'",
  );
  return Number(row?.n ?? 0);
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Whether the connection was one an earlier request had used (keep-alive). */
  reusedSocket: boolean;
}

interface RawRequest {
  method?: string;
  /** Sent as written: no URL parsing or normalisation on the way. */
  path: string;
  headers?: http.OutgoingHttpHeaders;
  body?: string;
  /** Send the body in chunks without a Content-Length. */
  chunked?: boolean;
  agent?: http.Agent;
}

/** One request over loopback; rejects on a reset or hang-up (what a browser would show as a network error). */
function send(port: number, { method = 'GET', path, headers = {}, body, chunked, agent }: RawRequest) {
  return new Promise<Answer>((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: agent ?? false,
        headers: {
          ...(body !== undefined ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          ...(body !== undefined && !chunked ? { 'content-length': Buffer.byteLength(body) } : {}),
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: text,
            reusedSocket: request.reusedSocket,
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    if (body !== undefined && chunked) {
      for (let at = 0; at < body.length; at += 4096) request.write(body.slice(at, at + 4096));
    }
    request.end(chunked ? undefined : body);
  });
}

async function listen(t: TestApp): Promise<number> {
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return (t.app.server.address() as AddressInfo).port;
}

/** Authorization request paths the provider's router (or middie's mount match) accepts, none of them exact. */
const AUTHORIZE_VARIANTS = [
  `${MOUNT}/v1/authorize/`,
  `${MOUNT}/v1/authorize//`,
  `${MOUNT}/v1/Authorize`,
  `${MOUNT}/V1/AUTHORIZE`,
  `${MOUNT}/v1/%61uthorize`,
  `${MOUNT}/v1/authorize%2F`,
  `${MOUNT}//v1/authorize`,
  `${MOUNT}/v1/authorize;x=1`,
  `${MOUNT}/./v1/authorize`,
  `${MOUNT}/v1/x/../authorize`,
  `${MOUNT}/v1/x/../Authorize`,
  `${MOUNT}/v1/authorize#`,
  '/OAUTH2/DEFAULT/v1/authorize',
  '/oauth2/Default/v1/authorize',
  '/oauth2/%64efault/v1/authorize',
  `${PORTAL}${MOUNT}/v1/authorize`,
];

const TOKEN_VARIANTS = [
  `${MOUNT}/v1/token/`,
  `${MOUNT}/v1/Token`,
  `${MOUNT}/V1/TOKEN`,
  `${MOUNT}/v1/%74oken`,
  `${MOUNT}/v1/token;x`,
  `${MOUNT}/v1/x/../Token`,
  '/OAUTH2/default/v1/token',
  '/oauth2/%64efault/v1/token',
];

describe('paths under the issuer are matched exactly: no variant skips the limits and caps', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    // Each test is its own client (X-Forwarded-For from the trusted loopback proxy).
    t = await startApp(
      { AUTHORIZE_RATE_LIMIT: '1', TOKEN_RATE_LIMIT: '1', TRUST_PROXY: 'loopback' },
      tempDir(),
    );
    port = await listen(t);
  });
  afterAll(async () => t.close());

  let clients = 0;
  const nextClient = () => `203.0.113.${(clients += 1)}`;
  const authorize = (path: string, client: string, overrides: Record<string, string> = {}, method = 'GET') =>
    send(port, {
      method,
      path: `${path}?${authorizeQuery(overrides)}`,
      headers: { 'x-forwarded-for': client },
    });

  it.each(AUTHORIZE_VARIANTS)(
    '%s is 404 past the limit, with a long state, nonce or request, and stores nothing',
    async (variant) => {
      const before = await interactionCount(t.app);
      const long = 'x'.repeat(MAX_STATE_LENGTH + 1);
      const cases: [string, Record<string, string>][] = [
        ['state over the cap', { state: long }],
        ['nonce over the cap', { nonce: long }],
        ['request over the cap', { login_hint: 'x'.repeat(MAX_AUTHORIZE_PARAMS_LENGTH) }],
      ];
      for (const [name, overrides] of cases) {
        const answer = await authorize(variant, nextClient(), overrides);
        expect(answer.status, name).toBe(404);
      }
      // The limit: the client's one request a minute is spent on the exact path, then the variant.
      const client = nextClient();
      expect((await authorize(`${MOUNT}/v1/authorize`, client)).status).toBe(303);
      const past = await authorize(variant, client);
      expect(past.status).toBe(404);
      expect(past.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(past.body)).toMatchObject({ error: 'invalid_request' });
      expect(await interactionCount(t.app)).toBe(before + 1);
    },
  );

  it.each(TOKEN_VARIANTS)('%s is 404 past the token limit', async (variant) => {
    const client = nextClient();
    const token = (path: string) =>
      send(port, {
        method: 'POST',
        path,
        headers: { 'x-forwarded-for': client },
        body: `grant_type=refresh_token&client_id=${CLIENT_ID}&refresh_token=not-a-token`,
      });
    expect((await token(`${MOUNT}/v1/token`)).status).toBe(400);
    expect((await token(variant)).status).toBe(404);
    expect((await token(`${MOUNT}/v1/token`)).status).toBe(429);
  });

  it('counts and caps HEAD /v1/authorize (the provider runs its GET route) like GET', async () => {
    const before = await interactionCount(t.app);
    const long = 'x'.repeat(MAX_STATE_LENGTH + 1);
    expect((await authorize(`${MOUNT}/v1/authorize`, nextClient(), { state: long }, 'HEAD')).status).toBe(
      400,
    );
    const client = nextClient();
    expect((await authorize(`${MOUNT}/v1/authorize`, client, {}, 'HEAD')).status).toBe(303);
    expect((await authorize(`${MOUNT}/v1/authorize`, client, {}, 'HEAD')).status).toBe(429);
    expect((await authorize(`${MOUNT}/v1/authorize`, client)).status).toBe(429);
    expect(await interactionCount(t.app)).toBe(before + 1);
  });

  it.each([
    `${MOUNT}/v1/keys/`,
    `${MOUNT}/v1/Keys`,
    `${MOUNT}/.well-known/OPENID-configuration`,
    `${MOUNT}/.well-known/openid-configuration/`,
    `${MOUNT}/v1/logout/success/`,
    `${MOUNT}/v1/Logout`,
    `${MOUNT}/v1/userinfo/`,
    `${MOUNT}/Interaction/abc`,
    `${MOUNT}/interaction/abc/`,
    `${MOUNT}/interaction/a%62c`,
    `${MOUNT}/v1/authorize/abc/`,
    `${MOUNT}`,
    `${MOUNT}/`,
    `${MOUNT}/nothing`,
  ])('%s is 404', async (variant) => {
    expect((await send(port, { path: variant })).status).toBe(404);
  });

  it('serves every exact route as before', async () => {
    const get = (path: string) => send(port, { path });
    expect((await get(`${MOUNT}/.well-known/openid-configuration`)).status).toBe(200);
    expect((await get(`${MOUNT}/v1/keys`)).status).toBe(200);
    expect((await get(`${MOUNT}/v1/logout/success`)).status).toBe(200);
    expect((await get(`${MOUNT}/v1/userinfo`)).status).toBe(401);
    // Pages of an unknown interaction and the provider's resume of one: theirs to refuse, as HTML, not the edge's.
    for (const path of [`${MOUNT}/interaction/unknown-uid`, `${MOUNT}/v1/authorize/unknown-uid`]) {
      const answer = await get(path);
      expect(answer.headers['content-type'], path).toMatch(/^text\/html/);
    }
    const preflight = await send(port, {
      method: 'OPTIONS',
      path: `${MOUNT}/v1/token`,
      headers: { origin: PORTAL, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
  });
});

describe('stored interactions are bounded per client and in total', () => {
  let t: TestApp;
  let clock: { now: number };
  beforeAll(async () => {
    clock = { now: Date.now() };
    t = await startApp({ AUTHORIZE_RATE_LIMIT: '100000' }, tempDir(), { now: () => clock.now });
  });
  afterAll(async () => t.close());

  const authorize = (remoteAddress: string, overrides: Record<string, string> = {}) =>
    t.app.inject({ url: `${MOUNT}/v1/authorize?${authorizeQuery(overrides)}`, remoteAddress });

  it(`stores at most ${INTERACTIONS_PER_CLIENT} per client in 15 minutes, then 429 with Retry-After`, async () => {
    const client = '198.51.100.20';
    for (let call = 0; call < INTERACTIONS_PER_CLIENT; call += 1) {
      expect((await authorize(client)).statusCode).toBe(303);
    }
    const before = await interactionCount(t.app);
    const refused = await authorize(client);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.body).toContain('Too many sign-ins were started from your network');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    expect(await interactionCount(t.app)).toBe(before);

    expect((await authorize('198.51.100.21')).statusCode).toBe(303);
    clock.now += 15 * 60 * 1000;
    expect((await authorize(client)).statusCode).toBe(303);
  }, 120_000);

  it(`refuses new sign-ins with 503 once ${MAX_LIVE_INTERACTIONS} interactions are live, storing nothing`, async () => {
    const { sql } = t.app.storage;
    await sql.run("DELETE FROM oidc_payloads WHERE model = 'Interaction'");
    // Other clients' interactions, up to one short of the bound.
    const expiresAt = Math.floor(Date.now() / 1000) + 15 * 60;
    await sql.run(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
       INSERT INTO oidc_payloads (model, id, payload, expires_at)
       SELECT 'Interaction', 'filler-' || i, '{}', ? FROM n`,
      [MAX_LIVE_INTERACTIONS - 1, expiresAt],
    );
    expect((await authorize('198.51.100.30')).statusCode).toBe(303);

    const refused = await authorize('198.51.100.31');
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.body).toContain('Too many sign-ins are in progress');
    expect(await interactionCount(t.app)).toBe(MAX_LIVE_INTERACTIONS);

    // Expired ones (not yet deleted) leave room.
    await sql.run("UPDATE oidc_payloads SET expires_at = ? WHERE id LIKE 'filler-%' AND id <= 'filler-2'", [
      expiresAt - 16 * 60,
    ]);
    expect((await authorize('198.51.100.31')).statusCode).toBe(303);
    await sql.run("DELETE FROM oidc_payloads WHERE model = 'Interaction'");
  });

  it('counts an IPv6 /64 as one client (a host rotating its own addresses is one)', async () => {
    const limited = await startApp({ AUTHORIZE_RATE_LIMIT: '3' });
    try {
      const statuses = [];
      for (let host = 1; host <= 6; host += 1) {
        const answer = await limited.app.inject({
          url: `${MOUNT}/v1/authorize?${authorizeQuery()}`,
          remoteAddress: `2001:db8:0:7::${host.toString(16)}:${host}`,
        });
        statuses.push(answer.statusCode);
      }
      expect(statuses).toEqual([303, 303, 303, 429, 429, 429]);
      const other = await limited.app.inject({
        url: `${MOUNT}/v1/authorize?${authorizeQuery()}`,
        remoteAddress: '2001:db8:0:8::1',
      });
      expect(other.statusCode).toBe(303);
    } finally {
      await limited.close();
    }
  });

  it(`keeps the largest interaction the caps let through under ${INTERACTION_ROW_BYTES} bytes (the bounds' arithmetic)`, async () => {
    const at = 'x'.repeat(MAX_STATE_LENGTH);
    const query = authorizeQuery({ state: at, nonce: at });
    const hint = 'h'.repeat(MAX_AUTHORIZE_PARAMS_LENGTH - query.length - '&login_hint='.length);
    const full = authorizeQuery({ state: at, nonce: at, login_hint: hint });
    expect(full.length).toBeLessThanOrEqual(MAX_AUTHORIZE_PARAMS_LENGTH);
    expect(full.length).toBeGreaterThan(MAX_AUTHORIZE_PARAMS_LENGTH - 64);
    expect((await authorize('198.51.100.40', { state: at, nonce: at, login_hint: hint })).statusCode).toBe(
      303,
    );
    const row = await t.app.storage.sql.get<{ n: number | string }>(
      `SELECT MAX(length(payload) + length(id) + length(model)) AS n FROM oidc_payloads WHERE model = 'Interaction'`,
    );
    // The columns' text, plus the row's and the index entries' own overhead (well under 1 KiB).
    expect(Number(row?.n) + 1024).toBeLessThanOrEqual(INTERACTION_ROW_BYTES);
  });
});

describe('oversized bodies on the provider endpoints: 413 with a JSON error, no connection reset', () => {
  let t: TestApp;
  let port: number;
  beforeAll(async () => {
    t = await startApp({}, tempDir());
    port = await listen(t);
  });
  afterAll(async () => t.close());

  const oversized = `token=${'a'.repeat(64 * 1024)}`;

  it.each(['/v1/revoke', '/v1/token', '/v1/introspect', '/v1/logout', '/v1/logout/confirm'])(
    'POST %s with 64 KiB: 413 in OAuth error shape, with or without a Content-Length',
    async (route) => {
      for (const chunked of [false, true]) {
        const answer = await send(port, {
          method: 'POST',
          path: `${MOUNT}${route}`,
          body: oversized,
          chunked,
        });
        expect(answer.status, `chunked: ${chunked}`).toBe(413);
        expect(answer.headers['content-type']).toMatch(/^application\/json/);
        expect(JSON.parse(answer.body)).toMatchObject({
          error: 'invalid_request',
          error_description: expect.stringMatching(/too large/),
        });
      }
    },
  );

  it('keeps the connection of a 64 KiB /v1/revoke for the next request, and the limit is the stated one', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const path = `${MOUNT}/v1/revoke`;
      const first = await send(port, { method: 'POST', path, body: oversized, agent });
      expect(first.status).toBe(413);
      const small = `token=x&client_id=${CLIENT_ID}`;
      const next = await send(port, { method: 'POST', path, body: small, agent });
      expect(next.status).toBe(200);
      expect(next.reusedSocket).toBe(true);
      const atLimit = `client_id=${CLIENT_ID}&token=${'a'.repeat(MAX_PROVIDER_BODY_BYTES - 40)}`;
      expect(Buffer.byteLength(atLimit)).toBeLessThanOrEqual(MAX_PROVIDER_BODY_BYTES);
      expect((await send(port, { method: 'POST', path, body: atLimit, agent })).status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('hands a chunked body under the bound to the provider, parsed', async () => {
    for (const route of ['/v1/token', '/v1/revoke']) {
      const answer = await send(port, {
        method: 'POST',
        path: `${MOUNT}${route}`,
        body: `grant_type=refresh_token&client_id=${CLIENT_ID}&refresh_token=not-a-token&token=not-a-token`,
        chunked: true,
      });
      // The provider read the form: the refresh token is unknown (token), an unknown token is revoked (revoke).
      expect(answer.status, route).toBe(route === '/v1/token' ? 400 : 200);
      if (route === '/v1/token') expect(JSON.parse(answer.body)).toMatchObject({ error: 'invalid_grant' });
    }
  });

  it('answers a 64 KiB sign-in form post 413 with a page (the sign-in pages answer as pages)', async () => {
    const answer = await send(port, {
      method: 'POST',
      path: `${MOUNT}/interaction/some-uid/password`,
      body: oversized,
    });
    expect(answer.status).toBe(413);
    expect(answer.body).toContain('This form is too large to be sent.');
  });
});
