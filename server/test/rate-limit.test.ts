import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config/index.js';
import { loggerOptions } from '../src/config/logger.js';
import {
  appForBlock,
  authorizeUrl,
  CookieJar,
  follow,
  hiddenFields,
  httpsRemotesFor,
  pkcePair,
  startApp,
  tempDir,
} from './helpers.js';
import { formAction } from './security-helpers.js';

describe("the sign-in pages' per-address limit (SIGN_IN_POSTS_PER_MINUTE)", () => {
  const t = appForBlock(() => startApp({ SIGN_IN_POSTS_PER_MINUTE: '10' }));

  it('takes the setting: the 11th post of a minute from one address is a 429 page, another address still posts', async () => {
    const jar = new CookieJar();
    const { challenge } = pkcePair();
    const page = await follow(
      t.app,
      jar,
      await t.app.inject({ url: authorizeUrl({ challenge }), headers: { cookie: jar.header() } }),
    );
    const post = (remoteAddress: string) =>
      t.app.inject({
        method: 'POST',
        url: formAction(page.body),
        remoteAddress,
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
        payload: new URLSearchParams({ ...hiddenFields(page.body), email: '', password: '' }).toString(),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 11; i += 1) statuses.push((await post('10.99.0.1')).statusCode);
    expect(statuses).toEqual([...Array<number>(10).fill(400), 429]);
    expect((await post('10.99.0.2')).statusCode).toBe(400);
  });
});

describe('the /api flood guard (API_RATE_LIMIT)', () => {
  const t = appForBlock(() => startApp({ API_RATE_LIMIT: '3' }));

  it('answers 429 with the JSON error shape once a client address goes over the limit', async () => {
    const statuses: number[] = [];
    for (let call = 0; call < 4; call += 1) {
      statuses.push((await t.app.inject('/api/clientConfiguration/getSettings')).statusCode);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    const refused = await t.app.inject('/api/clientConfiguration/getSettings');
    expect(refused.json()).toEqual({
      error: expect.stringMatching(/rate limit|too many/i),
      code: 'rate_limited',
    });
    expect(refused.headers['retry-after']).toBeDefined();
  });

  it('does not limit the shell or the sign-in pages', async () => {
    for (let call = 0; call < 5; call += 1) expect((await t.app.inject('/healthz')).statusCode).toBe(200);
  });
});

/** An app whose log lines (as the server writes them: loggerOptions) are kept in `lines`. */
async function startLoggedApp(env: Record<string, string>) {
  const dataDir = tempDir();
  const settings = path.join(dataDir, 'settings.json');
  writeFileSync(settings, JSON.stringify({ Domain: HTTPS_PORTAL, ClientId: 'account-portal' }));
  const config = loadConfig({
    DATA_DIR: dataDir,
    SHELL_DIST: path.join(dataDir, 'no-shell-build'),
    PUBLIC_URL: HTTPS_PORTAL,
    SETTINGS_FILE: settings,
    LOG_LEVEL: 'info',
    ...httpsRemotesFor({ PUBLIC_URL: HTTPS_PORTAL }, dataDir),
    ...env,
  });
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
      callback();
    },
  });
  const app = await buildApp(config, { logger: { ...(loggerOptions(config) as object), stream } });
  return {
    app,
    lines,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const HTTPS_PORTAL = 'https://portal.example';
const SETTINGS = '/api/clientConfiguration/getSettings';
const remoteAddressesLogged = (lines: Record<string, unknown>[]) =>
  lines.flatMap((line) => {
    const req = line.req as { remoteAddress?: string } | undefined;
    return req?.remoteAddress ? [req.remoteAddress] : [];
  });

describe('per-address limits and log addresses cannot be forged with X-Forwarded-For (TRUST_PROXY)', () => {
  it('with an https PUBLIC_URL and TRUST_PROXY unset, a rotating X-Forwarded-For is one address', async () => {
    const t = await startLoggedApp({ API_RATE_LIMIT: '3' });
    try {
      const statuses: number[] = [];
      for (let call = 0; call < 5; call += 1) {
        const response = await t.app.inject({
          url: SETTINGS,
          remoteAddress: '198.51.100.20',
          headers: { 'x-forwarded-for': `203.0.113.${call}`, 'x-forwarded-proto': 'https' },
        });
        statuses.push(response.statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const logged = remoteAddressesLogged(t.lines);
      expect(logged.length).toBeGreaterThan(0);
      expect(new Set(logged)).toEqual(new Set(['198.51.100.20']));
    } finally {
      await t.close();
    }
  });

  it('with TRUST_PROXY=1, the address the proxy appended counts, not what the client put before it', async () => {
    const t = await startLoggedApp({ API_RATE_LIMIT: '3', TRUST_PROXY: '1' });
    try {
      const via = (forwardedFor: string) =>
        t.app.inject({
          url: SETTINGS,
          remoteAddress: '10.0.0.2',
          headers: { 'x-forwarded-for': forwardedFor },
        });
      const statuses: number[] = [];
      for (let call = 0; call < 4; call += 1) {
        statuses.push((await via(`192.0.2.${call}, 203.0.113.9`)).statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      expect((await via('192.0.2.1, 203.0.113.10')).statusCode).toBe(200);
      const logged = remoteAddressesLogged(t.lines);
      expect(logged).toContain('203.0.113.9');
      expect(logged.some((address) => address.startsWith('192.0.2.'))).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('with TRUST_PROXY naming the proxy, a client that is not the proxy cannot forward', async () => {
    const t = await startLoggedApp({ API_RATE_LIMIT: '2', TRUST_PROXY: '10.0.0.0/8' });
    try {
      const from = (remoteAddress: string, forwardedFor: string) =>
        t.app.inject({ url: SETTINGS, remoteAddress, headers: { 'x-forwarded-for': forwardedFor } });
      // Through the proxy: each client is its own address.
      expect((await from('10.0.0.2', '203.0.113.1')).statusCode).toBe(200);
      expect((await from('10.0.0.2', '203.0.113.2')).statusCode).toBe(200);
      expect((await from('10.0.0.2', '203.0.113.3')).statusCode).toBe(200);
      // Straight from the internet: its forged header does not count.
      expect((await from('198.51.100.30', '203.0.113.4')).statusCode).toBe(200);
      expect((await from('198.51.100.30', '203.0.113.5')).statusCode).toBe(200);
      expect((await from('198.51.100.30', '203.0.113.6')).statusCode).toBe(429);
    } finally {
      await t.close();
    }
  });
});
