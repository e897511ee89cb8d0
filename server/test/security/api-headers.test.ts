/**
 * The JSON API's answers carry the API's security headers (OWASP REST Security Cheat Sheet), exactly, and no page
 * header; CORS only for the portal's origins; the pages (the shell, the provider's sign-in page) keep theirs.
 * headers-cors.test.ts holds CORS in full and the pages' CSP in detail.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { apiPaths } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import {
  ALICE,
  appForBlock,
  authorizeUrl,
  CLIENT_ID,
  CookieJar,
  follow,
  startApp,
  subOf,
  tempDir,
  tokensFor,
} from '../helpers.js';

const TRUSTED = 'http://localhost:3001';
const HTTPS_URL = 'https://portal.example';

/** A fake shell build: the page headers are checked on its index.html. */
function shellFiles(dataDir: string, trusted: string) {
  const shell = path.join(dataDir, 'shell-dist');
  mkdirSync(shell, { recursive: true });
  writeFileSync(
    path.join(shell, 'index.html'),
    '<!doctype html><html lang="en"><title>My Profile</title></html>',
  );
  const remotesFile = path.join(dataDir, 'remotes.json');
  writeFileSync(remotesFile, JSON.stringify({ remotes: {} }));
  return { SHELL_DIST: shell, REMOTES_FILE: remotesFile, TRUSTED_ORIGINS: trusted };
}

async function startPortal(env: Record<string, string> = {}) {
  const dataDir = tempDir();
  const t = await startApp({ ...shellFiles(dataDir, TRUSTED), ...env }, dataDir);
  const tokens = await tokensFor(t.app, ALICE);
  return Object.assign(t, { token: tokens.access_token, sub: subOf(tokens.id_token) });
}

/** The portal behind https (its settings' Domain and trusted origin follow PUBLIC_URL's scheme). */
async function startHttpsPortal() {
  const dataDir = tempDir();
  const settings = path.join(dataDir, 'settings.json');
  writeFileSync(settings, JSON.stringify({ Domain: HTTPS_URL, ClientId: CLIENT_ID }));
  return startApp(
    { ...shellFiles(dataDir, 'https://embed.example'), PUBLIC_URL: HTTPS_URL, SETTINGS_FILE: settings },
    dataDir,
  );
}

/** Headers every HTTP answer has whatever it is: the transport's. */
const TRANSPORT = /^(content-length|date|connection|keep-alive)$/;

/** The answer's headers, transport left out, sorted by name. */
function headersOf(response: LightMyRequestResponse): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(response.headers)
      .filter(([name]) => !TRANSPORT.test(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** The OWASP REST set, and the `Vary: Origin` every answer has (a refused origin's too). */
const API_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy': "frame-ancestors 'none'",
  'content-type': 'application/json; charset=utf-8',
  vary: 'Origin',
  'x-content-type-options': 'nosniff',
};

describe('the API answers with the API headers, exactly', () => {
  const t = appForBlock(() => startPortal());

  it('an authenticated read: the OWASP REST set and nothing of a page', async () => {
    const response = await t.app.inject({
      url: apiPaths.isFederated(t.sub),
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(response.statusCode).toBe(200);
    expect(headersOf(response)).toEqual(API_HEADERS);
  });

  it('every kind of refusal carries the same set (with its own headers beside it)', async () => {
    const bearer = { authorization: `Bearer ${t.token}` };
    const refusals: [string, string | InjectOptions, Record<string, unknown>][] = [
      ['401', apiPaths.isFederated(t.sub), { 'www-authenticate': 'Bearer' }],
      ['403', { url: apiPaths.isFederated('00uSomeoneElse00000'), headers: bearer }, {}],
      ['404', { url: '/api/nothing', headers: bearer }, {}],
      ['404', '/api', {}],
      // Answered by frameworkErrors, before any hook: no CORS hook ran, so no Vary either (toEqual skips undefined).
      ['400', { url: '/api/profile/%E0%A4%A/isfederated', headers: bearer }, { vary: undefined }],
      [
        '400',
        {
          method: 'PUT',
          url: apiPaths.profileUpdate(t.sub),
          headers: { ...bearer, 'content-type': 'application/json' },
          payload: '{"firstName":',
        },
        {},
      ],
    ];
    for (const [status, request, own] of refusals) {
      const response = await t.app.inject(request);
      const where = `${status} ${typeof request === 'string' ? request : request.url}`;
      expect(String(response.statusCode), where).toBe(status);
      expect(headersOf(response), where).toEqual({ ...API_HEADERS, ...own });
    }
  });

  it('CORS for a trusted origin, none at all for another', async () => {
    const read = (origin: string) =>
      t.app.inject({
        url: apiPaths.isFederated(t.sub),
        headers: { authorization: `Bearer ${t.token}`, origin },
      });
    expect(headersOf(await read(TRUSTED))).toEqual({
      ...API_HEADERS,
      'access-control-allow-origin': TRUSTED,
      'access-control-expose-headers': 'WWW-Authenticate, Retry-After',
    });
    expect(headersOf(await read('http://evil.example'))).toEqual(API_HEADERS);
  });

  it('the pages keep the page headers: the shell and the provider sign-in page', async () => {
    const shell = await t.app.inject('/profile');
    expect(shell.headers['content-type']).toMatch(/^text\/html/);
    const signInPage = await follow(t.app, new CookieJar(), await t.app.inject(authorizeUrl()));
    expect(signInPage.headers['content-type']).toMatch(/^text\/html/);
    // The sign-in pages send their own, narrower Referrer-Policy (the interaction routes').
    for (const [where, page, referrerPolicy] of [
      ['shell', shell, 'no-referrer'],
      ['sign-in', signInPage, 'same-origin'],
    ] as const) {
      expect(page.statusCode, where).toBe(200);
      expect(page.headers['content-security-policy'], where).toMatch(
        /default-src 'self'.*frame-ancestors 'self'/,
      );
      expect(page.headers['x-frame-options'], where).toBe('SAMEORIGIN');
      expect(page.headers['referrer-policy'], where).toBe(referrerPolicy);
      expect(page.headers['x-content-type-options'], where).toBe('nosniff');
      expect(page.headers['cross-origin-opener-policy'], where).toBe('same-origin-allow-popups');
    }
  });
});

describe('behind https', () => {
  const t = appForBlock(startHttpsPortal);

  it('adds HSTS to the API set, and the pages keep their own policy', async () => {
    const https = { 'x-forwarded-proto': 'https' };
    const hsts = { 'strict-transport-security': 'max-age=31536000; includeSubDomains' };
    const refusal = await t.app.inject({ url: apiPaths.isFederated('00uSomeone000000000'), headers: https });
    expect(headersOf(refusal)).toEqual({ ...API_HEADERS, ...hsts, 'www-authenticate': 'Bearer' });
    // The settings are public and read before sign-in: their route asks caches to revalidate instead.
    const settings = await t.app.inject({ url: apiPaths.settings(), headers: https });
    expect(headersOf(settings)).toEqual({ ...API_HEADERS, ...hsts, 'cache-control': 'no-cache' });
    const page = await t.app.inject({ url: '/profile', headers: https });
    expect(page.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    expect(page.headers['content-security-policy']).toMatch(/upgrade-insecure-requests/);
  });
});

describe('the flood guard (API_RATE_LIMIT)', () => {
  const t = appForBlock(() => startPortal({ API_RATE_LIMIT: '2' }));

  it('adds no count to answers under the limit; its 429 says when to come back', async () => {
    const settings = () => t.app.inject(apiPaths.settings());
    // startPortal's sign-in calls no /api route: these are the address's first calls.
    for (let call = 0; call < 2; call += 1) {
      expect(headersOf(await settings())).toEqual({ ...API_HEADERS, 'cache-control': 'no-cache' });
    }
    const refused = await settings();
    expect(refused.statusCode).toBe(429);
    expect(headersOf(refused)).toEqual({
      ...API_HEADERS,
      'retry-after': expect.stringMatching(/^\d+$/),
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': expect.stringMatching(/^\d+$/),
    });
  });
});
