/**
 * The per-address limits that guard something stored or guessable (new authorization requests, token requests,
 * sign-in form posts) count in the database (src/throttles/request-windows.ts), so two instances over one database
 * admit the limit once, not twice. Runs on both storages (vitest projects sqlite and postgres).
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FORM_POSTS_PER_MINUTE } from '../src/oidc/interactions/routes.js';
import { AddressLimiter, REQUEST_WINDOW_MS } from '../src/throttles/request-windows.js';
import {
  appForBlock,
  authorizeUrl,
  CLIENT_ID,
  CookieJar,
  follow,
  hiddenFields,
  PORTAL,
  startApp,
  tempDir,
  type TestApp,
} from './helpers.js';
import { formAction } from './security-helpers.js';

async function windowRows(app: FastifyInstance): Promise<{ key: string; ends_at: number; hits: number }[]> {
  return app.storage.sql.all('SELECT key, ends_at, hits FROM request_windows ORDER BY key');
}

describe('SqlRequestWindows', () => {
  const t = appForBlock(() => startApp());
  const windows = () => t.app.storage.requestWindows;

  it("counts a key's requests in a window that runs from its first request, then starts the next", async () => {
    const start = 1_000_000;
    expect(await windows().hit('k:a', 60_000, start)).toEqual({ count: 1, endsAt: start + 60_000 });
    expect(await windows().hit('k:a', 60_000, start + 30_000)).toEqual({ count: 2, endsAt: start + 60_000 });
    expect(await windows().hit('k:a', 60_000, start + 59_999)).toEqual({ count: 3, endsAt: start + 60_000 });
    // Another key has its own window.
    expect(await windows().hit('k:b', 60_000, start + 59_999)).toEqual({ count: 1, endsAt: start + 119_999 });
    // The first request at or after the end starts the next window, from that request.
    expect(await windows().hit('k:a', 60_000, start + 60_000)).toEqual({ count: 1, endsAt: start + 120_000 });
    expect(await windows().hit('k:a', 60_000, start + 61_000)).toEqual({ count: 2, endsAt: start + 120_000 });
  });

  it('counts a parallel burst exactly: every request gets its own count', async () => {
    const burst = 100;
    const counts = await Promise.all(
      Array.from({ length: burst }, () => windows().hit('burst:a', 60_000, 2_000_000)),
    );
    expect(counts.map(({ count }) => count).sort((x, y) => x - y)).toEqual(
      Array.from({ length: burst }, (_, index) => index + 1),
    );
    expect(new Set(counts.map(({ endsAt }) => endsAt))).toEqual(new Set([2_060_000]));
    expect((await windowRows(t.app)).find(({ key }) => key === 'burst:a')?.hits).toBe(burst);
  });

  it('prunes the windows that ended, and only those', async () => {
    await windows().prune(Number.MAX_SAFE_INTEGER);
    expect(await windowRows(t.app)).toEqual([]);
    await windows().hit('prune:ended', 60_000, 3_000_000);
    await windows().hit('prune:ends-now', 60_000, 3_010_000);
    await windows().hit('prune:open', 60_000, 3_010_001);
    expect(await windows().prune(3_070_000)).toBe(2);
    expect(await windowRows(t.app)).toEqual([{ key: 'prune:open', ends_at: 3_070_001, hits: 1 }]);
    // A pruned key starts afresh.
    expect(await windows().hit('prune:ended', 60_000, 3_070_000)).toEqual({ count: 1, endsAt: 3_130_000 });
  });
});

describe('AddressLimiter over the stored windows', () => {
  const t = appForBlock(() => startApp());

  it('answers the seconds left in the window once over the limit, and 0 again in the next window', async () => {
    let now = 5_000_000;
    const limiter = new AddressLimiter(t.app.storage.requestWindows, 'test', 2, () => now);
    expect([await limiter.hit('a'), await limiter.hit('a')]).toEqual([0, 0]);
    now += 15_000;
    expect(await limiter.hit('a')).toBe(45);
    now += 44_001;
    expect(await limiter.hit('a')).toBe(1);
    now += 999;
    expect(await limiter.hit('a')).toBe(0);
  });

  it('cannot be grown without bound by rotating addresses: the ended windows are pruned', async () => {
    let now = 7_000_000;
    const limiter = new AddressLimiter(t.app.storage.requestWindows, 'rotating', 2, () => now);
    for (let index = 0; index < 1000; index += 1) {
      expect(await limiter.hit(`2001:db8::${index.toString(16)}`)).toBe(0);
    }
    const rotating = async () =>
      (await windowRows(t.app)).filter(({ key }) => key.startsWith('rotating:')).length;
    expect(await rotating()).toBe(1000);
    now += REQUEST_WINDOW_MS;
    expect(await limiter.hit('2001:db8::ffff')).toBe(0);
    await t.app.storage.requestWindows.prune(now);
    expect(await rotating()).toBe(1);
  });

  it('keeps each limit and each address apart', async () => {
    const now = () => 6_000_000;
    const authorize = new AddressLimiter(t.app.storage.requestWindows, 'authorize', 1, now);
    const token = new AddressLimiter(t.app.storage.requestWindows, 'token', 1, now);
    expect(await authorize.hit('203.0.113.1')).toBe(0);
    expect(await token.hit('203.0.113.1')).toBe(0);
    expect(await authorize.hit('203.0.113.2')).toBe(0);
    expect(await authorize.hit('203.0.113.1')).toBe(60);
  });
});

describe('the server prunes ended windows once a window', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    vi.useRealTimers();
  });

  it('deletes the windows that ended a minute after they ended, and keeps the open ones', async () => {
    // Only the intervals are the test's: everything else (the database driver's timeouts) runs on real time.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const clock = { now: 8_000_000 };
    t = await startApp({}, undefined, { now: () => clock.now });
    const app = t.app;
    await app.storage.requestWindows.hit('token:203.0.113.1', REQUEST_WINDOW_MS, clock.now);
    clock.now += 30_000;
    await app.storage.requestWindows.hit('token:203.0.113.2', REQUEST_WINDOW_MS, clock.now);
    clock.now += 30_000;
    await vi.advanceTimersByTimeAsync(REQUEST_WINDOW_MS);
    await vi.waitFor(async () =>
      expect((await windowRows(app)).map(({ key }) => key)).toEqual(['token:203.0.113.2']),
    );
  });
});

/** Two instances of the server over one database: the same DATA_DIR (SQLite's file; the postgres project's database). */
async function startPair(
  env: Record<string, string>,
): Promise<{ a: TestApp; b: TestApp; close(): Promise<void> }> {
  const dataDir = tempDir();
  const a = await startApp(env, dataDir);
  let b: TestApp;
  try {
    b = await startApp(env, dataDir);
  } catch (error) {
    await a.close();
    throw error;
  }
  expect(b.config.DATABASE_URL).toBe(a.config.DATABASE_URL);
  return {
    a,
    b,
    async close() {
      // b's own close would drop the shared database and folder under a: a's close does both, last.
      await b.app.close();
      await a.close();
    },
  };
}

const tokenRequest = (app: FastifyInstance, remoteAddress: string) =>
  app.inject({
    method: 'POST',
    url: '/oauth2/default/v1/token',
    remoteAddress,
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PORTAL },
    payload: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: CLIENT_ID,
      refresh_token: 'not-a-token',
    }).toString(),
  });

describe('two instances over one database share every per-address limit of the provider', () => {
  const pair = appForBlock(() => startPair({ AUTHORIZE_RATE_LIMIT: '2', TOKEN_RATE_LIMIT: '4' }));

  it('AUTHORIZE_RATE_LIMIT: new authorization requests of one address count on both instances together', async () => {
    const authorize = (app: FastifyInstance) =>
      app.inject({ url: authorizeUrl(), remoteAddress: '198.51.100.1' });
    const statuses = [];
    for (const app of [pair.a.app, pair.b.app, pair.a.app, pair.b.app]) {
      statuses.push((await authorize(app)).statusCode);
    }
    expect(statuses).toEqual([303, 303, 429, 429]);
    const refused = await authorize(pair.b.app);
    expect(refused.body).toContain('Too many sign-in requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
  });

  it('TOKEN_RATE_LIMIT: a parallel burst spread over both instances gets exactly the limit through', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        tokenRequest(index % 2 === 0 ? pair.a.app : pair.b.app, '198.51.100.2'),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    // Through the limit: the provider's own refusal of the unknown refresh token.
    expect(statuses.filter((status) => status === 400)).toHaveLength(4);
    expect(statuses.filter((status) => status === 429)).toHaveLength(8);
    const refused = answers.find((answer) => answer.statusCode === 429);
    expect(refused?.json()).toMatchObject({ error: 'temporarily_unavailable', errorCode: 'E0000047' });
    expect(refused?.headers['access-control-allow-origin']).toBe(PORTAL);
  });
});

/** The sign-in page of a new authorization request on `app`; its form posts go to whichever instance is given. */
async function openSignIn(app: FastifyInstance) {
  const jar = new CookieJar();
  const page = await follow(app, jar, await app.inject({ url: authorizeUrl() }));
  expect(page.statusCode).toBe(200);
  return (on: FastifyInstance, fields: Record<string, string>): Promise<LightMyRequestResponse> =>
    on.inject({
      method: 'POST',
      url: formAction(page.body),
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ ...hiddenFields(page.body), ...fields }).toString(),
    });
}

describe('two instances over one database share the sign-in form limit', () => {
  const pair = appForBlock(() => startPair({}));

  it(`${FORM_POSTS_PER_MINUTE} posts a minute per address on both instances together, then 429 on either`, async () => {
    const post = await openSignIn(pair.a.app);
    // Empty fields: refused at once by the form (no password hashing), but each post counts.
    for (let index = 0; index < FORM_POSTS_PER_MINUTE; index += 1) {
      const answer = await post(index % 2 === 0 ? pair.a.app : pair.b.app, { email: '', password: '' });
      expect(answer.statusCode, `post ${index + 1}`).toBe(400);
    }
    for (const app of [pair.a.app, pair.b.app]) {
      const refused = await post(app, { email: 'alice@example.com', password: 'Wonderland-42' });
      expect(refused.statusCode).toBe(429);
      // A page in the sign-in pages' look, with the wait in words.
      expect(refused.headers['content-type']).toMatch(/^text\/html/);
      expect(refused.body).toMatch(
        /Too many sign-in attempts from your network\. Try again in (\d+ seconds?|1 minute)\./,
      );
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(REQUEST_WINDOW_MS / 1000);
    }
  });
});

describe('a per-address count that cannot be stored is 503 with Retry-After (fail closed)', () => {
  let t: TestApp;
  // One connection, so that making it read-only makes the whole storage refuse writes.
  beforeAll(async () => {
    t = await startApp({ DATABASE_POOL_MAX: '1' });
  });
  afterAll(async () => t.close());

  /**
   * `request` with the storage read-only: SQLite's query_only; PostgreSQL's read-only transactions (25006) on the
   * pool's one connection, which the pool replaces after that failure, so each request needs its own.
   */
  async function whileReadOnly(
    request: () => Promise<LightMyRequestResponse>,
  ): Promise<LightMyRequestResponse> {
    const sql = t.app.storage.sql;
    const readOnly = (on: boolean) =>
      sql.dialect === 'sqlite'
        ? sql.run(`PRAGMA query_only = ${on ? 1 : 0}`)
        : sql.run(`SET default_transaction_read_only = ${on ? 'on' : 'off'}`);
    await readOnly(true);
    try {
      return await request();
    } finally {
      await readOnly(false);
    }
  }

  it('answers the authorization request, the token request and the sign-in form 503, and recovers', async () => {
    const post = await openSignIn(t.app);
    const address = '198.51.100.3';
    const authorize = await whileReadOnly(() =>
      t.app.inject({ url: authorizeUrl(), remoteAddress: address }),
    );
    expect(authorize.statusCode).toBe(503);
    expect(authorize.headers['retry-after']).toBe('2');
    expect(authorize.headers['content-type']).toMatch(/^text\/html/);
    expect(authorize.body).toContain('Try again in a moment');

    const token = await whileReadOnly(() => tokenRequest(t.app, address));
    expect(token.statusCode).toBe(503);
    expect(token.headers['retry-after']).toBe('2');
    expect(token.headers['access-control-allow-origin']).toBe(PORTAL);
    expect(token.json()).toEqual({
      error: 'temporarily_unavailable',
      error_description: expect.stringMatching(/cannot store data right now/),
    });

    const form = await whileReadOnly(() =>
      post(t.app, { email: 'alice@example.com', password: 'Wonderland-42' }),
    );
    expect(form.statusCode).toBe(503);
    expect(form.headers['retry-after']).toBe('2');
    expect(form.headers['content-type']).toMatch(/^text\/html/);
    expect(form.body).toContain('Try again');

    // Refused at the count, before anything else: nothing was counted but the sign-in page's own authorization
    // (its request and its interaction, oidc/edge.ts).
    expect((await windowRows(t.app)).map(({ key, hits }) => [key, hits])).toEqual([
      ['authorize:127.0.0.1', 1],
      ['interactions:127.0.0.1', 1],
    ]);

    // Recovered: counted again.
    expect((await t.app.inject({ url: authorizeUrl(), remoteAddress: address })).statusCode).toBe(303);
    expect((await tokenRequest(t.app, address)).statusCode).toBe(400);
    expect((await windowRows(t.app)).map(({ key }) => key)).toEqual([
      'authorize:127.0.0.1',
      `authorize:${address}`,
      'interactions:127.0.0.1',
      `interactions:${address}`,
      `token:${address}`,
    ]);
  });
});
