/**
 * Security headers on the portal (the shell's index.html, from a small fake SHELL_DIST) and on the API, and
 * CORS exactly as wide as the remote origins need: PUBLIC_URL and each TRUSTED_ORIGIN, on the API, the
 * provider's endpoints and the remote static host, and no other origin, never `*`, credentials only where the
 * server says (Okta's session API).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { apiPaths } from 'shared-auth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStaticHost } from '../../src/static-host/app.js';
import {
  ALICE,
  appForBlock,
  CLIENT_ID,
  mintAccessToken,
  startApp,
  subOf,
  tempDir,
  tokensFor,
} from '../helpers.js';

const PUBLIC_URL = 'http://localhost:3000';
const TRUSTED = ['http://localhost:3001', 'http://localhost:3100'];
const CDN = 'https://cdn.example.com';
const REMOTES = {
  remotes: {
    remote_profile: { entry: `${CDN}/remote-profile/1.4.0/remoteEntry.js` },
    remote_password: { entry: 'http://localhost:3002/remoteEntry.js' },
  },
};
/** The origins the shell loads remote code from: the remotes file's, then the trusted ones. */
const REMOTE_ORIGINS = [CDN, 'http://localhost:3002', ...TRUSTED];

/** Origins that must get no CORS answer: lookalikes of the allowed ones, and strangers. */
const REFUSED_ORIGINS = [
  'http://evil.example',
  'http://localhost:3000.evil.example',
  'http://evil.localhost:3000',
  'https://localhost:3000',
  'http://localhost',
  'http://localhost:30001',
  'http://127.0.0.1:3000',
  'http://localhost:3001/',
  'HTTP://LOCALHOST:3001',
  'null',
  CDN,
];

/** A fake shell build and remotes file in a temp dir. */
function portalFiles(dataDir: string) {
  const shell = path.join(dataDir, 'shell-dist');
  mkdirSync(shell, { recursive: true });
  writeFileSync(
    path.join(shell, 'index.html'),
    '<!doctype html><html lang="en"><title>My Profile</title></html>',
  );
  writeFileSync(path.join(shell, 'main.0a1b2c3d4e5f.js'), 'console.log("shell")');
  const remotesFile = path.join(dataDir, 'remotes.json');
  writeFileSync(remotesFile, JSON.stringify(REMOTES));
  return { SHELL_DIST: shell, REMOTES_FILE: remotesFile, TRUSTED_ORIGINS: TRUSTED.join(',') };
}

/** The portal on those files, with Alice signed in: her access token and her sub. */
async function startPortalAsAlice() {
  const dataDir = tempDir();
  const t = await startApp(portalFiles(dataDir), dataDir);
  const tokens = await tokensFor(t.app, ALICE);
  return Object.assign(t, { token: tokens.access_token, sub: subOf(tokens.id_token) });
}

function cspOf(response: LightMyRequestResponse): Map<string, string[]> {
  const header = String(response.headers['content-security-policy'] ?? '');
  return new Map(
    header
      .split(';')
      .map((directive) => directive.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...sources]) => [name ?? '', sources]),
  );
}

/** The headers every answer of the portal carries, page or API, refusal or not. */
function expectSecurityHeaders(response: LightMyRequestResponse, where: string) {
  expect(response.headers['x-content-type-options'], where).toBe('nosniff');
  expect(response.headers['referrer-policy'], where).toBe('no-referrer');
  expect(response.headers['x-frame-options'], where).toBe('SAMEORIGIN');
  const csp = cspOf(response);
  expect(csp.get('frame-ancestors'), where).toEqual(["'self'"]);
  expect(csp.get('default-src'), where).toEqual(["'self'"]);
  expect(csp.get('object-src'), where).toEqual(["'none'"]);
  expect(csp.get('base-uri'), where).toEqual(["'self'"]);
}

/** The API's answers: the OWASP REST set (api-headers.test.ts checks it exactly), none of the page's. */
function expectApiHeaders(response: LightMyRequestResponse, where: string) {
  expect(response.headers['x-content-type-options'], where).toBe('nosniff');
  expect(response.headers['content-security-policy'], where).toBe("frame-ancestors 'none'");
  expect(response.headers['x-frame-options'], where).toBeUndefined();
  expect(response.headers['referrer-policy'], where).toBeUndefined();
}

describe('security headers on http (no HSTS)', () => {
  const t = appForBlock(startPortalAsAlice);

  it('the shell page: a CSP that lets module federation load the remotes, and nothing wider', async () => {
    for (const url of ['/', '/profile', '/security']) {
      const page = await t.app.inject(url);
      expect(page.statusCode, url).toBe(200);
      expect(page.headers['content-type'], url).toMatch(/^text\/html/);
      expectSecurityHeaders(page, url);
      expect(page.headers['strict-transport-security'], url).toBeUndefined();
      const csp = cspOf(page);
      // remoteEntry.js and its chunks are scripts; their CSS, fonts, images and manifests come from there too.
      expect(csp.get('script-src')).toEqual(["'self'", ...REMOTE_ORIGINS]);
      expect(csp.get('style-src')).toEqual(["'self'", "'unsafe-inline'", ...REMOTE_ORIGINS]);
      expect(csp.get('connect-src')).toEqual(expect.arrayContaining(["'self'", ...REMOTE_ORIGINS]));
      expect(csp.get('img-src')).toEqual(expect.arrayContaining(["'self'", ...REMOTE_ORIGINS]));
      expect(csp.get('font-src')).toEqual(expect.arrayContaining(["'self'", ...REMOTE_ORIGINS]));
      expect(csp.get('script-src-attr')).toEqual(["'none'"]);
      expect(csp.get('form-action')).toEqual(["'self'", PUBLIC_URL, ...TRUSTED]);
      expect(csp.has('upgrade-insecure-requests')).toBe(false);
      // No wildcard, no scheme-wide source, no inline or eval script anywhere.
      for (const [name, sources] of csp) {
        for (const source of sources) {
          expect(source, `${name} ${source}`).not.toMatch(
            /^(\*|https?:|wss?:|'unsafe-eval'|'unsafe-hashes')$/,
          );
          expect(source, `${name} ${source}`).not.toContain('*');
        }
      }
      expect(csp.get('script-src')).not.toContain("'unsafe-inline'");
      expect(csp.get('script-src')).not.toContain('data:');
    }
    const chunk = await t.app.inject('/main.0a1b2c3d4e5f.js');
    expect(chunk.statusCode).toBe(200);
    expectSecurityHeaders(chunk, 'a shell chunk');
  });

  it("the API: the API's headers on answers and on every kind of refusal", async () => {
    const bearer = { authorization: `Bearer ${t.token}` };
    const answers: [string, string | InjectOptions][] = [
      ['200 settings', apiPaths.settings()],
      ['200 isfederated', { url: apiPaths.isFederated(t.sub), headers: bearer }],
      ['401 no token', apiPaths.isFederated(t.sub)],
      ['401 bad token', { url: apiPaths.isFederated(t.sub), headers: { authorization: 'Bearer x.y.z' } }],
      ['403 another sub', { url: apiPaths.isFederated('00uSomeoneElse00000'), headers: bearer }],
      [
        '400 malformed JSON',
        {
          method: 'PUT',
          url: apiPaths.profileUpdate(t.sub),
          headers: { ...bearer, 'content-type': 'application/json' },
          payload: '{"firstName":',
        },
      ],
      [
        '413 too large',
        {
          method: 'PUT',
          url: apiPaths.profileUpdate(t.sub),
          headers: { ...bearer, 'content-type': 'application/json' },
          payload: JSON.stringify({ firstName: 'x'.repeat(20_000) }),
        },
      ],
      ['404 unknown', { url: '/api/nothing', headers: bearer }],
      ['400 bad percent-encoding', { url: '/api/profile/%E0%A4%A/isfederated', headers: bearer }],
      // Over the router's parameter length (414 without a shell build; here the shell's wildcard route answers).
      ['404 long path segment', { url: `/api/profile/${'a'.repeat(200)}/isfederated`, headers: bearer }],
    ];
    for (const [name, request] of answers) {
      const response = await t.app.inject(request);
      expect(String(response.statusCode), name).toBe(name.split(' ')[0]);
      expect(response.headers['content-type'], name).toMatch(/^application\/json/);
      expectApiHeaders(response, name);
      expect(response.headers['strict-transport-security'], name).toBeUndefined();
    }
  });
});

/** The remotes file of an https deployment: REMOTES without its http entry. */
function httpsRemotes(dataDir: string): string {
  const file = path.join(dataDir, 'https-remotes.json');
  writeFileSync(file, JSON.stringify({ remotes: { remote_profile: REMOTES.remotes.remote_profile } }));
  return file;
}

describe('security headers behind https (PUBLIC_URL https)', () => {
  it('adds HSTS to the shell page and to API answers and refusals, upgrade-insecure-requests to the page', async () => {
    const dataDir = tempDir();
    const settings = path.join(dataDir, 'settings.json');
    writeFileSync(settings, JSON.stringify({ Domain: 'https://portal.example', ClientId: CLIENT_ID }));
    const t = await startApp(
      {
        ...portalFiles(dataDir),
        // http trusted origins and http remote entries are refused with an https PUBLIC_URL.
        TRUSTED_ORIGINS: 'https://embed.example',
        REMOTES_FILE: httpsRemotes(dataDir),
        PUBLIC_URL: 'https://portal.example',
        SETTINGS_FILE: settings,
      },
      dataDir,
    );
    try {
      const https = { 'x-forwarded-proto': 'https' };
      for (const [name, url] of [
        ['shell page', '/profile'],
        ['API answer', apiPaths.settings()],
        ['API refusal', apiPaths.isFederated('00uSomeone000000000')],
        ['bad path', '/api/profile/%ED%A0%80/isfederated'],
      ] as const) {
        const response = await t.app.inject({ url, headers: https });
        if (url.startsWith('/api/')) expectApiHeaders(response, name);
        else expectSecurityHeaders(response, name);
        expect(response.headers['strict-transport-security'], name).toBe(
          'max-age=31536000; includeSubDomains',
        );
        expect(cspOf(response).has('upgrade-insecure-requests'), name).toBe(!url.startsWith('/api/'));
      }
    } finally {
      await t.close();
    }
  });
});

describe('CORS: PUBLIC_URL and TRUSTED_ORIGINS, and no wider', () => {
  const t = appForBlock(startPortalAsAlice);

  const preflight = (url: string, origin: string, method = 'PUT') =>
    t.app.inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin,
        'access-control-request-method': method,
        'access-control-request-headers': 'authorization,content-type',
      },
    });

  function expectNoCors(response: LightMyRequestResponse, where: string) {
    for (const name of Object.keys(response.headers)) {
      expect(name, `${where}: ${name}`).not.toMatch(/^access-control-/);
    }
  }

  it('the allowed origins are exactly PUBLIC_URL and TRUSTED_ORIGINS', () => {
    expect(t.config.allowedOrigins).toEqual([PUBLIC_URL, ...TRUSTED]);
  });

  it.each([PUBLIC_URL, ...TRUSTED])('the API answers %s: preflight, answers and refusals', async (origin) => {
    const ok = await preflight(apiPaths.profileUpdate(t.sub), origin);
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(origin);
    expect(ok.headers['access-control-allow-methods']).toBe('GET, HEAD, POST, PUT, DELETE');
    expect(ok.headers['access-control-allow-headers']).toBe('authorization,content-type');
    expect(ok.headers['access-control-allow-credentials']).toBeUndefined();
    expect(ok.headers.vary).toMatch(/Origin/);

    const bearer = { authorization: `Bearer ${t.token}` };
    for (const [name, request] of [
      ['answer', { url: apiPaths.isFederated(t.sub), headers: { ...bearer, origin } }],
      ['401', { url: apiPaths.isFederated(t.sub), headers: { origin } }],
      ['403', { url: apiPaths.isFederated('00uSomeoneElse00000'), headers: { ...bearer, origin } }],
      ['settings', { url: apiPaths.settings(), headers: { origin } }],
    ] as const) {
      const response = await t.app.inject(request);
      // The page reads refusals too: a 401's message and its WWW-Authenticate, a 429's or 503's Retry-After.
      expect(response.headers['access-control-allow-origin'], name).toBe(origin);
      expect(response.headers['access-control-expose-headers'], name).toBe('WWW-Authenticate, Retry-After');
      expect(response.headers['access-control-allow-credentials'], name).toBeUndefined();
      expect(response.headers.vary, name).toMatch(/Origin/);
    }
  });

  it.each(REFUSED_ORIGINS)('the API gives %s no CORS header at all', async (origin) => {
    for (const refused of [
      await preflight(apiPaths.profileUpdate(t.sub), origin),
      await preflight(apiPaths.multifactor('email', t.sub, 'reset'), origin, 'DELETE'),
    ]) {
      expect(refused.statusCode).toBe(404);
      expect(refused.json()).toEqual({
        error: expect.stringMatching(/^Not found: OPTIONS /),
        code: 'not_found',
      });
      expectNoCors(refused, 'preflight');
    }
    const answer = await t.app.inject({
      url: apiPaths.isFederated(t.sub),
      headers: { authorization: `Bearer ${t.token}`, origin },
    });
    expect(answer.statusCode).toBe(200);
    expectNoCors(answer, 'answer');
    // The answer still depends on the Origin: caches must keep it apart from an allowed origin's.
    expect(answer.headers.vary).toBe('Origin');
    expectNoCors(await t.app.inject({ url: apiPaths.settings(), headers: { origin } }), 'settings');
  });

  it("sends credentials only on Okta's session API, and only to allowed origins", async () => {
    const allowed = await t.app.inject({ url: '/api/v1/sessions/me', headers: { origin: TRUSTED[0] } });
    expect(allowed.statusCode).toBe(404);
    expect(allowed.headers['access-control-allow-origin']).toBe(TRUSTED[0]);
    expect(allowed.headers['access-control-allow-credentials']).toBe('true');
    expectNoCors(
      await t.app.inject({ url: '/api/v1/sessions/me', headers: { origin: 'http://evil.example' } }),
      'sessions',
    );
  });

  it('never answers `*`, whatever the origin or path', async () => {
    const urls = [
      apiPaths.settings(),
      apiPaths.isFederated(t.sub),
      '/remotes.json',
      '/oauth2/default/v1/keys',
      '/oauth2/default/.well-known/openid-configuration',
      '/',
    ];
    for (const origin of [...REFUSED_ORIGINS, PUBLIC_URL, ...TRUSTED, '*']) {
      for (const url of urls) {
        const response = await t.app.inject({ url, headers: { origin, authorization: `Bearer ${t.token}` } });
        expect(response.headers['access-control-allow-origin'], `${origin} ${url}`).not.toBe('*');
      }
    }
  });

  it("the provider's token, keys, userinfo and revoke: preflights for allowed origins only", async () => {
    const endpoints = [
      ['POST', '/oauth2/default/v1/token'],
      ['GET', '/oauth2/default/v1/keys'],
      ['GET', '/oauth2/default/v1/userinfo'],
      ['POST', '/oauth2/default/v1/revoke'],
    ] as const;
    for (const [method, url] of endpoints) {
      for (const origin of [PUBLIC_URL, ...TRUSTED]) {
        const ok = await preflight(url, origin, method);
        expect(ok.statusCode, `${url} ${origin}`).toBe(204);
        expect(ok.headers['access-control-allow-origin'], `${url} ${origin}`).toBe(origin);
        expect(ok.headers['access-control-allow-credentials'], url).toBeUndefined();
        expect(ok.headers.vary, url).toMatch(/Origin/);
      }
      for (const origin of REFUSED_ORIGINS)
        expectNoCors(await preflight(url, origin, method), `${url} ${origin}`);
    }
    // The answers themselves (allowed and untrusted origins on all of them: okta-compat.test.ts).
    for (const origin of REFUSED_ORIGINS) {
      expectNoCors(await t.app.inject({ url: '/oauth2/default/v1/keys', headers: { origin } }), origin);
      const userinfo = await t.app.inject({
        url: '/oauth2/default/v1/userinfo',
        headers: { origin, authorization: `Bearer ${await mintAccessToken(t.app, t.sub)}` },
      });
      expectNoCors(userinfo, `userinfo ${origin}`);
    }
  });
});

describe('the remote static host: CORS for its allowed origins only', () => {
  let host: FastifyInstance;
  const allowed = ['http://localhost:3000', 'http://localhost:3100'];
  beforeAll(async () => {
    const root = path.join(tempDir(), 'remote-dist');
    mkdirSync(root, { recursive: true });
    writeFileSync(path.join(root, 'remoteEntry.js'), 'var remote_profile;');
    writeFileSync(path.join(root, '123.0a1b2c3d.js'), '// chunk');
    host = await buildStaticHost({ root, allowedOrigins: allowed });
  });
  afterAll(async () => host.close());

  it.each(allowed)('serves %s with CORS, GET and HEAD only, no credentials', async (origin) => {
    for (const url of ['/remoteEntry.js', '/123.0a1b2c3d.js']) {
      const response = await host.inject({ url, headers: { origin } });
      expect(response.statusCode).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe(origin);
      expect(response.headers['access-control-allow-credentials']).toBeUndefined();
      expect(response.headers.vary).toMatch(/Origin/);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    }
    const ok = await host.inject({
      method: 'OPTIONS',
      url: '/remoteEntry.js',
      headers: { origin, 'access-control-request-method': 'GET' },
    });
    expect(ok.statusCode).toBe(204);
    expect(ok.headers['access-control-allow-origin']).toBe(origin);
    expect(ok.headers['access-control-allow-methods']).toBe('GET, HEAD');
  });

  it.each([...REFUSED_ORIGINS.filter((origin) => origin !== 'http://localhost'), 'http://localhost:3001'])(
    'gives %s no CORS header',
    async (origin) => {
      const response = await host.inject({ url: '/remoteEntry.js', headers: { origin } });
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      const pre = await host.inject({
        method: 'OPTIONS',
        url: '/remoteEntry.js',
        headers: { origin, 'access-control-request-method': 'GET' },
      });
      expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    },
  );
});
