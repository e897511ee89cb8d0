import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD_CHANGE_LIMIT } from '../src/throttles/limits.js';
import {
  authorizeUrl,
  type CookieJar,
  exchangeCode,
  follow,
  parseTwice,
  PORTAL,
  refresh,
  signIn,
  startApp,
  subOf,
  tempDir,
  type Tokens,
  appForBlock,
} from './helpers.js';
import { renewSilently } from './security-helpers.js';

/** The fixed clock every app of this file reads (ms since the epoch): a restart keeps the same time. */
const clock = Date.now();
const now = () => clock;

const t = appForBlock(() => startApp({}, tempDir(), { now }));

interface Account {
  sub: string;
  email: string;
  password: string;
  tokens: Tokens;
  jar: CookieJar;
}

/** A fresh account per test, signed in through the provider's own pages. */
async function newAccount(
  app: FastifyInstance = t.app,
  options: { federated?: boolean; email?: string } = {},
): Promise<Account> {
  const email = options.email ?? `pw-${randomUUID().slice(0, 8)}@example.org`;
  const password = 'Original-Pass-1';
  await app.directory.createUser({
    email,
    password,
    givenName: 'Pat',
    familyName: 'Tester',
    country: 'DE',
    isFederated: options.federated,
  });
  return { email, password, ...(await signedIn(app, { email, password })) };
}

async function signedIn(app: FastifyInstance, credentials: { email: string; password: string }) {
  const result = await signIn(app, credentials);
  const tokens = await exchangeCode(app, result);
  return { sub: subOf(tokens.id_token), tokens, jar: result.jar };
}

function change(
  body: unknown,
  account: { sub: string; tokens: Tokens },
  options: { app?: FastifyInstance; sub?: string; token?: string | null } = {},
) {
  const token = options.token === undefined ? account.tokens.access_token : options.token;
  return (options.app ?? t.app).inject({
    method: 'PUT',
    url: `/api/password/${options.sub ?? account.sub}/change`,
    headers: {
      'content-type': 'application/json',
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Whether the provider's sign-in page accepts these credentials (a redirect back with a code). */
async function canSignIn(app: FastifyInstance, credentials: { email: string; password: string }) {
  try {
    await signIn(app, credentials);
    return true;
  } catch {
    return false;
  }
}

/** A silent sign-in (prompt=none) with this browser's cookies: a code while its provider session lives. */
async function silentSignIn(app: FastifyInstance, jar: CookieJar): Promise<'code' | string> {
  const response = await follow(
    app,
    jar,
    await app.inject({ url: authorizeUrl({ prompt: 'none' }), headers: { cookie: jar.header() } }),
  );
  const location = new URL(String(response.headers.location), PORTAL);
  return location.searchParams.get('code') ? 'code' : (location.searchParams.get('error') ?? 'none');
}

const NEW_PASSWORD = 'Tumbling-Down-7';

// Who may call it, the body's refusals, the policy texts, the generic 500 and the wrong-password throttle are
// the contract suite's (test/contract/password.test.ts), against both identity backends. Here: what only the
// embedded directory does (argon2 and its Server-Timing, the provider's sign-in, the sessions ended, a restart).
describe("PUT /api/password/:sub/change: the embedded directory's argon2 work", () => {
  let account: Account;
  beforeAll(async () => {
    account = await newAccount();
  });

  it('a wrong current password costs one argon2 verify (Server-Timing), and the sign-in page still refuses the new one', async () => {
    const response = await change({ OldPassword: 'Not-My-Password-1', NewPassword: NEW_PASSWORD }, account);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'wrong_password' });
    expect(response.headers['server-timing']).toMatch(/^argon2-verify;dur=\d+\.\d$/);
    expect(await canSignIn(t.app, { email: account.email, password: NEW_PASSWORD })).toBe(false);
  });

  it("a refusal by the portal's policy runs no argon2 at all, not even the current password's check", async () => {
    const response = await change({ OldPassword: account.password, NewPassword: 'example' }, account);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'password_policy' });
    expect(response.headers['server-timing']).toBeUndefined();
    expect(await canSignIn(t.app, account)).toBe(true);
  });
});

describe('PUT /api/password/:sub/change: success', () => {
  it('stores a new argon2id hash: sign-in accepts the new password and refuses the old one', async () => {
    const account = await newAccount();
    const before = await t.app.directory.passwordHashOf(account.sub);
    const response = await change({ OldPassword: account.password, NewPassword: NEW_PASSWORD }, account);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(parseTwice(response.body)).toEqual({ status: 'changed' });
    expect(response.headers['server-timing']).toMatch(/^argon2-verify;dur=[\d.]+, argon2-hash;dur=[\d.]+$/);

    const after = await t.app.directory.passwordHashOf(account.sub);
    expect(after).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(after).not.toBe(before);
    expect(await canSignIn(t.app, { email: account.email, password: NEW_PASSWORD })).toBe(true);
    expect(await canSignIn(t.app, account)).toBe(false);
  });

  it('revokes every grant and refresh token of the account, and keeps only the provider session making the change', async () => {
    const portal = await newAccount();
    const laptop = await signedIn(t.app, portal);
    const phone = await signedIn(t.app, portal);
    const stranger = await newAccount();
    expect(decodeJwt(laptop.tokens.access_token).sid).not.toBe(decodeJwt(portal.tokens.access_token).sid);
    // The portal has renewed once already: its current refresh token is the rotated one.
    const renewed = await refresh(t.app, portal.tokens.refresh_token ?? '');

    const response = await change(
      { OldPassword: portal.password, NewPassword: NEW_PASSWORD },
      { ...portal, tokens: renewed },
    );
    expect(response.statusCode).toBe(200);

    // Issue 18: the portal's own grant ends too (a copy of its refresh token would otherwise live on): its
    // refresh token is refused, and its provider session signs in silently for fresh tokens that call the API.
    await expect(refresh(t.app, renewed.refresh_token ?? '')).rejects.toThrow(/refresh failed: 400/);
    const again = await renewSilently(t.app, portal.jar);
    expect(decodeJwt(again.access_token).sid).toBe(decodeJwt(portal.tokens.access_token).sid);
    const api = await t.app.inject({
      url: `/api/profile/${portal.sub}/isfederated`,
      headers: { authorization: `Bearer ${again.access_token}` },
    });
    expect(api.statusCode).toBe(200);
    await expect(refresh(t.app, again.refresh_token ?? '')).resolves.toBeDefined();

    // The other browsers' sessions and refresh tokens are gone.
    for (const other of [laptop, phone]) {
      await expect(refresh(t.app, other.tokens.refresh_token ?? '')).rejects.toThrow(/refresh failed: 400/);
      expect(await silentSignIn(t.app, other.jar)).toBe('login_required');
    }
    const rows = await t.app.storage.sql.all<{ model: string; n: number }>(
      'SELECT model, count(*) AS n FROM oidc_payloads WHERE account_id = ? GROUP BY model ORDER BY model',
      [portal.sub],
    );
    expect(Object.fromEntries(rows.map((row) => [row.model, row.n]))).toMatchObject({ Session: 1, Grant: 1 });

    // Another account is untouched.
    await expect(refresh(t.app, stranger.tokens.refresh_token ?? '')).resolves.toBeDefined();
    expect(await silentSignIn(t.app, stranger.jar)).toBe('code');
  });
});

describe('PUT /api/password/:sub/change: throttle of wrong current passwords (embedded: a restart)', () => {
  const wrong = (account: Account, app?: FastifyInstance) =>
    change({ OldPassword: 'Not-My-Password-1', NewPassword: NEW_PASSWORD }, account, { app });
  const right = (account: Account, app?: FastifyInstance) =>
    change({ OldPassword: account.password, NewPassword: NEW_PASSWORD }, account, { app });

  it('survives a restart: the count is in the database', async () => {
    const dataDir = tempDir();
    const first = await startApp({}, dataDir, { now });
    const account = await newAccount(first.app);
    for (let attempt = 0; attempt < PASSWORD_CHANGE_LIMIT.max; attempt += 1) {
      expect((await wrong(account, first.app)).statusCode).toBe(400);
    }
    await first.app.close();

    const second = await startApp({}, dataDir, { now });
    try {
      // The same signing key after the restart: the access token is still valid for the restarted server.
      const refused = await right(account, second.app);
      expect(refused.statusCode).toBe(429);
      expect(refused.headers['retry-after']).toBe(String(PASSWORD_CHANGE_LIMIT.windowMs / 1000));
    } finally {
      await second.close();
    }
  });
});
