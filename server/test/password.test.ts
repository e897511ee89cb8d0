import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import {
  PASSWORD_CHANGE_ERRORS,
  PASSWORD_CHANGE_GENERIC_ERROR,
  PASSWORD_RULE_SERVER_ERRORS,
} from 'shared-auth/contract';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { PASSWORD_CHANGE_LIMIT } from '../src/throttles/limits.js';
import {
  authorizeUrl,
  type CookieJar,
  exchangeCode,
  follow,
  parseTwice,
  PORTAL,
  refresh,
  SAM,
  signIn,
  startApp,
  subOf,
  tempDir,
  type Tokens,
  appForBlock,
} from './helpers.js';

/** The fake clock every app of this file reads (ms since the epoch). */
let clock = Date.now();
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

describe('PUT /api/password/:sub/change: who may call it', () => {
  it('answers 401 without a token', async () => {
    const account = await newAccount();
    const response = await change({ OldPassword: account.password, NewPassword: NEW_PASSWORD }, account, {
      token: null,
    });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.json()).toEqual({
      error: expect.stringMatching(/no bearer access token/),
      code: 'unauthorized',
    });
  });

  it("answers 403 for another user's sub, and changes nothing", async () => {
    const [mallory, victim] = [await newAccount(), await newAccount()];
    const response = await change({ OldPassword: mallory.password, NewPassword: NEW_PASSWORD }, mallory, {
      sub: victim.sub,
    });
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: 'You can only access your own account', code: 'forbidden_sub' });
    expect(await canSignIn(t.app, victim)).toBe(true);
  });

  it('answers 403 to federated users', async () => {
    const sam = await signedIn(t.app, SAM);
    const response = await change({ OldPassword: SAM.password, NewPassword: NEW_PASSWORD }, sam);
    expect(response.statusCode).toBe(403);
    expect(response.json()).toEqual({ error: PASSWORD_CHANGE_ERRORS.federated, code: 'federated_user' });
    expect(await canSignIn(t.app, SAM)).toBe(true);
  });
});

describe('PUT /api/password/:sub/change: validation', () => {
  let account: Account;
  beforeAll(async () => {
    account = await newAccount();
  });

  it.each([
    ['no OldPassword', { NewPassword: NEW_PASSWORD }, 'Current password is a required field'],
    [
      'an empty OldPassword',
      { OldPassword: '', NewPassword: NEW_PASSWORD },
      'Current password is a required field',
    ],
    ['no NewPassword', { OldPassword: 'x' }, 'The new password is a required field'],
    ['a number as NewPassword', { OldPassword: 'x', NewPassword: 12345678 }, 'NewPassword must be text'],
    ['camelCase names', { oldPassword: 'x', newPassword: 'y' }, 'Current password is a required field'],
    [
      'an unknown field',
      { OldPassword: 'x', NewPassword: 'y', ConfirmPassword: 'y' },
      'Unknown field: ConfirmPassword',
    ],
    ['an array', [], 'The body must be a JSON object with OldPassword and NewPassword'],
    ['malformed JSON', '{"OldPassword": ', 'The request body is not valid JSON'],
  ])('answers 400 for %s', async (_name, body, error) => {
    const response = await change(body, account);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error, code: 'invalid_request' });
  });

  it('answers 400 "The current password is not correct." for a wrong current password, in ~argon2 time', async () => {
    const response = await change({ OldPassword: 'Not-My-Password-1', NewPassword: NEW_PASSWORD }, account);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: 'The current password is not correct.',
      code: 'wrong_password',
    });
    expect(response.headers['server-timing']).toMatch(/^argon2-verify;dur=\d+\.\d$/);
    expect(await canSignIn(t.app, { email: account.email, password: NEW_PASSWORD })).toBe(false);
  });

  it.each([
    ['length', 'Short-1'],
    ['length', `Long-1${'x'.repeat(67)}`],
    ['number', 'Tumbling-Down'],
    ['lowercase', 'TUMBLING-DOWN-7'],
    ['uppercase', 'tumbling-down-7'],
    ['notCurrent', 'Original-Pass-1'],
  ] as const)('answers 400 with the %s text for %j', async (rule, NewPassword) => {
    const response = await change({ OldPassword: account.password, NewPassword }, account);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ error: PASSWORD_RULE_SERVER_ERRORS[rule], code: 'password_policy' });
  });

  it('answers 400 with the emailPart text when the new password holds part of the email', async () => {
    const local = account.email.split('@')[0] ?? '';
    const response = await change(
      { OldPassword: account.password, NewPassword: `Zz9-${local.slice(3, 6)}!` },
      account,
    );
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: PASSWORD_RULE_SERVER_ERRORS.emailPart,
      code: 'password_policy',
    });
  });

  it('lists every failing rule, in checklist order, before checking the current password', async () => {
    const response = await change({ OldPassword: account.password, NewPassword: 'example' }, account);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: [
        PASSWORD_RULE_SERVER_ERRORS.length,
        PASSWORD_RULE_SERVER_ERRORS.number,
        PASSWORD_RULE_SERVER_ERRORS.uppercase,
        PASSWORD_RULE_SERVER_ERRORS.emailPart,
      ].join(' '),
      code: 'password_policy',
    });
    // The policy comes first: no argon2 ran, not even the check of the current password.
    expect(response.headers['server-timing']).toBeUndefined();
    // Nothing was stored: the original password still works.
    expect(await canSignIn(t.app, account)).toBe(true);
  });

  it('keeps the generic text for unexpected failures only (500)', async () => {
    // The identity backend's password change fails in a way nobody foresaw.
    const broken = vi
      .spyOn(t.app.identity, 'changePassword')
      .mockRejectedValue(new Error('the disk is on fire'));
    try {
      const response = await change({ OldPassword: account.password, NewPassword: NEW_PASSWORD }, account);
      expect(response.statusCode).toBe(500);
      expect(response.json()).toEqual({ error: PASSWORD_CHANGE_GENERIC_ERROR, code: 'internal_error' });
    } finally {
      broken.mockRestore();
    }
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

  it("revokes the account's other sessions and refresh tokens, and keeps the session making the change", async () => {
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

    // The portal's session keeps working: its refresh token renews, its provider session signs in silently,
    // and its access token still calls the API.
    const again = await refresh(t.app, renewed.refresh_token ?? '');
    expect(decodeJwt(again.access_token).sid).toBe(decodeJwt(portal.tokens.access_token).sid);
    expect(await silentSignIn(t.app, portal.jar)).toBe('code');
    const api = await t.app.inject({
      url: `/api/profile/${portal.sub}/isfederated`,
      headers: { authorization: `Bearer ${again.access_token}` },
    });
    expect(api.statusCode).toBe(200);

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

describe('PUT /api/password/:sub/change: throttle of wrong current passwords', () => {
  const wrong = (account: Account, app?: FastifyInstance) =>
    change({ OldPassword: 'Not-My-Password-1', NewPassword: NEW_PASSWORD }, account, { app });
  const right = (account: Account, app?: FastifyInstance) =>
    change({ OldPassword: account.password, NewPassword: NEW_PASSWORD }, account, { app });

  it(`allows ${PASSWORD_CHANGE_LIMIT.max} wrong current passwords per ${PASSWORD_CHANGE_LIMIT.windowMs / 60000} minutes, then answers 429 saying when to try again`, async () => {
    const account = await newAccount();
    const other = await newAccount();
    const start = clock;
    for (let attempt = 1; attempt <= PASSWORD_CHANGE_LIMIT.max; attempt += 1) {
      clock = start + attempt * 1000;
      const response = await wrong(account);
      expect(response.statusCode, `attempt ${attempt}`).toBe(400);
    }
    clock = start + 10_000;
    const refused = await right(account);
    expect(refused.statusCode).toBe(429);
    // The first failure (start + 1 s) leaves the window 15 minutes later: 14 min 51 s from now.
    expect(refused.headers['retry-after']).toBe('891');
    expect(refused.json()).toEqual({
      error: 'Too many wrong current passwords. Try again in 15 minutes.',
      code: 'rate_limited',
    });
    expect(refused.json<{ error: string }>().error).toBe(PASSWORD_CHANGE_ERRORS.throttled(891));
    // Refused before any argon2 work, and nothing changed.
    expect(refused.headers['server-timing']).toBeUndefined();
    expect(await canSignIn(t.app, account)).toBe(true);
    // Per user: someone else is not affected.
    expect((await wrong(other)).statusCode).toBe(400);

    // A minute before the window ends: still refused, and says so.
    clock = start + 1000 + PASSWORD_CHANGE_LIMIT.windowMs - 60_000;
    const later = await right(account);
    expect(later.statusCode).toBe(429);
    expect(later.json()).toEqual({
      error: 'Too many wrong current passwords. Try again in 1 minute.',
      code: 'rate_limited',
    });
    expect(later.headers['retry-after']).toBe('60');

    // Once the oldest failure leaves the window, the right password works, and the count starts again.
    clock = start + 1000 + PASSWORD_CHANGE_LIMIT.windowMs;
    const changed = await right(account);
    expect(changed.statusCode).toBe(200);
    const count = await t.app.storage.sql.get<{ n: number }>(
      'SELECT count(*) AS n FROM password_change_failures WHERE user_id = ?',
      [account.sub],
    );
    expect(count?.n).toBe(0);
  });

  it('one failure leaving the window frees one attempt only (a sliding window)', async () => {
    const account = await newAccount();
    const start = clock;
    for (let attempt = 0; attempt < PASSWORD_CHANGE_LIMIT.max; attempt += 1) {
      clock = start + attempt * 60_000;
      expect((await wrong(account)).statusCode).toBe(400);
    }
    clock = start + PASSWORD_CHANGE_LIMIT.windowMs;
    expect((await wrong(account)).statusCode).toBe(400);
    const refused = await right(account);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe('60');
  });

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
