import { decodeProtectedHeader, type JWK } from 'jose';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import {
  ALICE,
  authorizeUrl,
  CookieJar,
  follow,
  signIn,
  startApp,
  subOf,
  tempDir,
  tokensFor,
  type TestApp,
} from './helpers.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

const jwksOf = async (app: FastifyInstance) =>
  (await app.inject('/oauth2/default/v1/keys')).json<{ keys: JWK[] }>().keys;
const kidOf = (token: string) => decodeProtectedHeader(token).kid;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** An authenticated API read, answered by `app`. */
const isFederated = (app: FastifyInstance, token: string) =>
  app.inject({ url: `/api/profile/${subOf(token)}/isfederated`, headers: bearer(token) });

/** Two instances (apps) over one database: the same data folder, so the same SQLite file or PostgreSQL database. */
async function twoInstances(now?: () => number): Promise<[TestApp, TestApp, () => Promise<void>]> {
  const dataDir = tempDir();
  const a = await startApp({}, dataDir, now ? { now } : {});
  const b = await startApp({}, dataDir, now ? { now } : {});
  // b first: a's close drops the database and removes the folder.
  return [a, b, async () => (await b.app.close(), await a.close())];
}

function ringOf(app: FastifyInstance) {
  if (!app.keyRing) throw new Error('no key ring: embedded mode expected');
  return app.keyRing;
}

describe('the key ring across instances', () => {
  it('instances over one database publish the same keys, and a token one signs opens the API of the other', async () => {
    const [a, b, close] = await twoInstances();
    try {
      expect(await jwksOf(b.app)).toEqual(await jwksOf(a.app));
      const tokens = await tokensFor(a.app, ALICE);
      expect((await isFederated(b.app, tokens.access_token)).statusCode).toBe(200);
      const userinfo = await b.app.inject({
        url: '/oauth2/default/v1/userinfo',
        headers: bearer(tokens.access_token),
      });
      expect(userinfo.statusCode).toBe(200);
      expect(kidOf(tokens.id_token)).toBe((await jwksOf(b.app))[0]?.kid);
    } finally {
      await close();
    }
  });

  it('rotation: the next key is in the JWKS before it signs; tokens of the old one work until it retires', async () => {
    let time = Date.now();
    const now = () => time;
    const [a, b, close] = await twoInstances(now);
    const refreshBoth = async () => {
      await ringOf(a.app).refresh();
      await ringOf(b.app).refresh();
    };
    try {
      const [first] = (await jwksOf(a.app)).map((key) => key.kid);

      // Day 83 of 90: the next key is published (verify-only for the provider) but nothing is signed with it.
      time += 83 * DAY;
      await refreshBoth();
      const published = await jwksOf(b.app);
      expect(published.map((key) => [key.kid, key.key_ops])).toEqual([
        [first, undefined],
        [expect.any(String), ['verify']],
      ]);
      const next = published[1]?.kid;
      expect(await jwksOf(a.app)).toEqual(published);
      const jar = new CookieJar();
      const before = await tokensFor(a.app, ALICE);
      const unused = await tokensFor(b.app, ALICE);
      expect([kidOf(before.access_token), kidOf(before.id_token), kidOf(unused.access_token)]).toEqual([
        first,
        first,
        first,
      ]);
      await signIn(a.app, ALICE, {}, jar);

      // Day 90: the next key signs on both instances; the old one is still published and accepted.
      time += 7 * DAY;
      await refreshBoth();
      expect((await jwksOf(a.app)).map((key) => key.kid)).toEqual([next, first]);
      const after = await tokensFor(b.app, ALICE);
      expect([kidOf(after.access_token), kidOf(after.id_token)]).toEqual([next, next]);
      expect((await isFederated(a.app, after.access_token)).statusCode).toBe(200);
      expect((await isFederated(b.app, before.access_token)).statusCode).toBe(200);
      // A session cookie signed with the old cookie key still signs the browser in without a password.
      const silent = await follow(
        a.app,
        jar,
        await a.app.inject({ url: authorizeUrl({ prompt: 'none' }), headers: { cookie: jar.header() } }),
      );
      expect(silent.headers.location).toMatch(/\/login\/callback\?code=/);
      // An ID token of the old key still names the session at sign-out (RP-initiated logout verifies it).
      const logout = await a.app.inject({
        url: `/oauth2/default/v1/logout?id_token_hint=${before.id_token}&post_logout_redirect_uri=${encodeURIComponent('http://localhost:3000/')}`,
      });
      expect(logout.statusCode).toBe(200);
      expect(logout.body).toContain('/v1/logout/confirm');

      // Its last token has expired (1 h + 5 min skew + 1 min refresh): retired, gone from the JWKS, refused.
      time += 66 * MINUTE;
      await refreshBoth();
      expect((await jwksOf(b.app)).map((key) => key.kid)).toEqual([next]);
      const refused = await isFederated(b.app, unused.access_token);
      expect(refused.statusCode).toBe(401);
      expect((await isFederated(b.app, after.access_token)).statusCode).toBe(200);
    } finally {
      await close();
    }
  });
});
