/**
 * Issue 9, the account-takeover paths that need only what an attacker could steal: an access token, a refresh
 * token, a password, a phishing proxy's session. Each block is one row of the table; each test failed on
 * the code before the fix. SQLite's migration 007 (rows written before hashed ids):
 * sqlite/account-takeover-migration-007.test.ts.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import pg from 'pg';
import {
  API_ERROR_CODES,
  apiPaths,
  PASSWORD_CHANGE_ERRORS,
  PASSWORD_RULE_SERVER_ERRORS,
  REAUTHENTICATION_WRONG_PASSWORD_ERROR,
} from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { chainGrantKey, sessionGrantKey } from '../src/storage/grants.js';
import { PASSWORD_CHANGE_LIMIT } from '../src/throttles/limits.js';
import {
  CLIENT_ID,
  type CookieJar,
  exchangeCode,
  PORTAL,
  providerSignOut,
  refreshRequest,
  signIn,
  type Tokens,
} from './helpers.js';
import {
  call,
  enrolAuthenticator,
  lastCodeFor,
  newUser,
  renewSilently,
  signInSession,
  totp,
  clockedAppInStep,
} from './security-helpers.js';

const t = clockedAppInStep();

const FIVE_MINUTES = 5 * 60_000;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

/** A signed-in browser: the user, its cookies at the provider and its tokens. */
interface Browser {
  user: { id: string; email: string };
  password: string;
  jar: CookieJar;
  tokens: Tokens;
  token: string;
}

async function browserOf(
  app: FastifyInstance,
  account: { user: { id: string; email: string }; password: string },
) {
  const result = await signIn(app, { email: account.user.email, password: account.password });
  const tokens = await exchangeCode(app, result);
  return { ...account, jar: result.jar, tokens, token: tokens.access_token } satisfies Browser;
}

const isFederated = (app: FastifyInstance, token: string, sub: string) =>
  app.inject({ url: apiPaths.isFederated(sub), headers: { authorization: `Bearer ${token}` } });

const userinfo = (app: FastifyInstance, token: string) =>
  app.inject({ url: '/oauth2/default/v1/userinfo', headers: { authorization: `Bearer ${token}` } });

function revoke(app: FastifyInstance, token: string, hint: string, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/oauth2/default/v1/revoke',
    headers: { ...form, origin: PORTAL, ...headers },
    payload: new URLSearchParams({ client_id: CLIENT_ID, token, token_type_hint: hint }).toString(),
  });
}

const stepUpGrantsOf = (userId: string) =>
  t.app.storage.sql.all<{ session_id: string; factor: string }>(
    'SELECT session_id, factor FROM stepup_grants WHERE user_id = ? ORDER BY session_id',
    [userId],
  );

describe('row 2: an access token of an ended session is refused at once, by /api and /v1/userinfo', () => {
  it('after sign-out (even though the token was verified and remembered before)', async () => {
    const browser = await browserOf(t.app, await newUser(t.app));
    expect((await isFederated(t.app, browser.token, browser.user.id)).statusCode).toBe(200);
    expect((await userinfo(t.app, browser.token)).statusCode).toBe(200);

    expect((await providerSignOut(t.app, browser)).statusCode).toBe(303);

    const api = await isFederated(t.app, browser.token, browser.user.id);
    expect(api.statusCode).toBe(401);
    expect(api.json()).toEqual({
      error: 'The sign-in session of this access token has ended; sign in again',
      code: 'unauthorized',
    });
    expect(api.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    expect((await userinfo(t.app, browser.token)).statusCode).toBe(401);
  });

  it('after /v1/revoke of the refresh token (its whole grant ends), and after /v1/revoke of the access token alone', async () => {
    const account = await newUser(t.app);
    const first = await browserOf(t.app, account);
    expect((await revoke(t.app, first.tokens.refresh_token ?? '', 'refresh_token')).statusCode).toBe(200);
    expect((await isFederated(t.app, first.token, first.user.id)).statusCode).toBe(401);

    const second = await browserOf(t.app, account);
    // okta-auth-js revokes with `Authorization: Basic base64(clientId)`.
    const basic = { authorization: `Basic ${Buffer.from(CLIENT_ID).toString('base64')}` };
    expect((await revoke(t.app, second.token, 'access_token', basic)).statusCode).toBe(200);
    expect((await isFederated(t.app, second.token, second.user.id)).statusCode).toBe(401);
    expect((await userinfo(t.app, second.token)).statusCode).toBe(401);
    // Only that token: the session renews and its new token works.
    const renewed = await refreshRequest(t.app, second.tokens.refresh_token ?? '');
    expect(renewed.statusCode).toBe(200);
    const fresh = renewed.json<Tokens>().access_token;
    expect((await isFederated(t.app, fresh, second.user.id)).statusCode).toBe(200);
  });

  it('a revoke request presented by another client, or with a token of another issuer, revokes nothing', async () => {
    const browser = await browserOf(t.app, await newUser(t.app));
    const other = await t.app.inject({
      method: 'POST',
      url: '/oauth2/default/v1/revoke',
      headers: form,
      payload: new URLSearchParams({ client_id: 'someone-else', token: browser.token }).toString(),
    });
    expect(other.statusCode).toBeGreaterThanOrEqual(400);
    expect((await isFederated(t.app, browser.token, browser.user.id)).statusCode).toBe(200);
  });

  it('a malformed Basic header at /v1/revoke is 400 invalid_client, not a 500', async () => {
    for (const authorization of ['Basic %%%', `Basic ${Buffer.from('%E0%A4%A').toString('base64')}`]) {
      const response = await revoke(t.app, 'anything', 'access_token', { authorization });
      expect(response.statusCode, authorization).toBe(400);
      expect(response.json()).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    }
  });

  it('after a password change in another browser; the changing browser renews silently with its cookie', async () => {
    const account = await newUser(t.app);
    const phishing = await browserOf(t.app, account);
    const owner = await browserOf(t.app, account);
    const changed = await call(t.app, 'PUT', apiPaths.passwordChange(account.user.id), {
      token: owner.token,
      body: { OldPassword: account.password, NewPassword: 'Brand-New-Secret-9' },
    });
    expect(changed.status).toBe(200);
    expect((await isFederated(t.app, phishing.token, account.user.id)).statusCode).toBe(401);
    expect((await userinfo(t.app, phishing.token)).statusCode).toBe(401);
    // Issue 18: the caller's grant ends too (a copied refresh token may be a branch of it); its session stays.
    expect((await isFederated(t.app, owner.token, account.user.id)).statusCode).toBe(401);
    const renewed = await renewSilently(t.app, owner.jar);
    expect((await isFederated(t.app, renewed.access_token, account.user.id)).statusCode).toBe(200);
  });

  it('step-up grants end with their session, in the same transaction', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const secret = await enrolAuthenticator(t, session);
    const browser = await browserOf(t.app, account).catch(() => undefined);
    // The account now asks for a code at sign-in: the second browser signs in with it.
    expect(browser).toBeUndefined();
    const other = await signInSession(t.app, account, () => ({ code: totp(secret, t.clock.now) }));
    t.clock.advance(30_000);
    const verified = await call(t.app, 'POST', apiPaths.stepUpVerify(account.user.id, 'google-auth'), {
      token: other.token,
      body: { passCode: totp(secret, t.clock.now) },
    });
    expect(verified.status).toBe(200);
    // Keyed by the session and the grant chain (issue 18), both hashed.
    const { gid } = decodeJwt(other.token) as { gid: string };
    expect((await stepUpGrantsOf(account.user.id)).map((grant) => grant.session_id)).toContain(
      chainGrantKey(other.sid, gid),
    );

    expect((await providerSignOut(t.app, other)).statusCode).toBe(303);
    const sessionKey = sessionGrantKey(other.sid);
    expect(
      (await stepUpGrantsOf(account.user.id)).filter((grant) => grant.session_id.startsWith(sessionKey)),
    ).toEqual([]);
  });
});

describe('row 1: turning on the first factor needs a fresh sign-in or the password again', () => {
  it('a stolen token of a sign-in older than 5 minutes cannot enrol or activate; the password again unlocks it', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const sub = account.user.id;
    t.clock.advance(FIVE_MINUTES + 30_000);

    for (const [method, url] of [
      ['POST', apiPaths.multifactor('googleauth', sub, 'enroll')],
      ['POST', apiPaths.multifactor('email', sub, 'enroll')],
    ] as const) {
      const refused = await call(t.app, method, url, { token: session.token, body: {} });
      expect(refused.status, url).toBe(403);
      expect(refused.data).toEqual({
        error: "Confirm it's you: enter your password to turn on 2-step verification.",
        code: API_ERROR_CODES.reauthenticationRequired,
        proof: 'password',
      });
    }

    const wrong = await call(t.app, 'POST', apiPaths.reauthenticate(sub), {
      token: session.token,
      body: { password: 'Not-The-Password-1' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.data).toEqual({ error: REAUTHENTICATION_WRONG_PASSWORD_ERROR, code: 'wrong_password' });

    const confirmed = await call(t.app, 'POST', apiPaths.reauthenticate(sub), {
      token: session.token,
      body: { password: account.password },
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.data).toEqual({
      status: 'VERIFIED',
      expiresAt: new Date(t.clock.now + FIVE_MINUTES).toISOString(),
    });
    await enrolAuthenticator(t, session);

    // With a factor, the password is no longer the proof: step-up is.
    const again = await call(t.app, 'POST', apiPaths.reauthenticate(sub), {
      token: session.token,
      body: { password: account.password },
    });
    expect(again.status).toBe(409);
  });

  it('the password confirmation lasts 5 minutes, belongs to its session, and is no step-up grant', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const elsewhere = await signInSession(t.app, account);
    const sub = account.user.id;
    t.clock.advance(FIVE_MINUTES + 30_000);
    expect(
      (
        await call(t.app, 'POST', apiPaths.reauthenticate(sub), {
          token: session.token,
          body: { password: account.password },
        })
      ).status,
    ).toBe(200);
    // Another session of the same user is not confirmed by it.
    expect(
      (
        await call(t.app, 'POST', apiPaths.multifactor('googleauth', sub, 'enroll'), {
          token: elsewhere.token,
          body: {},
        })
      ).status,
    ).toBe(403);
    t.clock.advance(FIVE_MINUTES + 30_000);
    expect(
      (
        await call(t.app, 'POST', apiPaths.multifactor('googleauth', sub, 'enroll'), {
          token: session.token,
          body: {},
        })
      ).status,
    ).toBe(403);
  });

  it("embedded: the factors' details say turning off keeps the factor", async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    for (const factor of ['googleauth', 'email'] as const) {
      const details = await call(t.app, 'GET', apiPaths.multifactor(factor, account.user.id, 'details'), {
        token: session.token,
      });
      expect(details.data).toEqual({ enrolled: false, enrolledDate: null, turnOff: 'keeps' });
    }
  });

  it('within 5 minutes of signing in nothing more is asked', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    t.clock.advance(FIVE_MINUTES - 30_000);
    await enrolAuthenticator(t, session);
  });

  it('wrong passwords at reauthenticate count with the password change (one throttle of wrong passwords)', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const sub = account.user.id;
    for (let i = 0; i < PASSWORD_CHANGE_LIMIT.max; i += 1) {
      const wrong = await call(t.app, 'POST', apiPaths.reauthenticate(sub), {
        token: session.token,
        body: { password: `Wrong-${i}-Password` },
      });
      expect(wrong.status).toBe(400);
    }
    const locked = await call(t.app, 'PUT', apiPaths.passwordChange(sub), {
      token: session.token,
      body: { OldPassword: account.password, NewPassword: 'Brand-New-Secret-9' },
    });
    expect(locked.status).toBe(429);
    expect(locked.response.headers['retry-after']).toMatch(/^\d+$/);
    t.clock.advance(15 * 60_000);
  });
});

describe('row 3: a 2-step change ends every other session; a password change needs the second factor', () => {
  it("activating the first factor ends the phishing proxy's session: its access and refresh tokens and its sign-in", async () => {
    const account = await newUser(t.app);
    const phishing = await browserOf(t.app, account);
    const owner = await signInSession(t.app, account);
    await enrolAuthenticator(t, owner);

    expect((await isFederated(t.app, phishing.token, account.user.id)).statusCode).toBe(401);
    expect((await refreshRequest(t.app, phishing.tokens.refresh_token ?? '')).statusCode).toBe(400);
    // enrolAuthenticator renewed the owner's tokens with its cookie (issue 18: the change ended its grant too).
    expect((await isFederated(t.app, owner.token, account.user.id)).statusCode).toBe(200);
    const ownerRenewal = await refreshRequest(t.app, owner.tokens.refresh_token ?? '');
    expect(ownerRenewal.statusCode).toBe(200);
  });

  it('turning a factor off, on again, and removing it each end the other sessions', async () => {
    const account = await newUser(t.app);
    const owner = await signInSession(t.app, account);
    const sub = account.user.id;
    const secret = await enrolAuthenticator(t, owner);
    const sent = await call(t.app, 'POST', apiPaths.multifactor('email', sub, 'enroll'), {
      token: owner.token,
      body: {},
    });
    expect(sent.status).toBe(200);
    const code = await lastCodeFor(t.app, account.user.email);
    expect(
      (
        await call(t.app, 'POST', apiPaths.multifactor('email', sub, 'activate'), {
          token: owner.token,
          body: { code },
        })
      ).status,
    ).toBe(200);
    // The activation ended the owner's grant too: its page renews with its cookie (issue 18).
    owner.token = (await renewSilently(t.app, owner.jar)).access_token;

    const steps: [string, () => Promise<{ status: number }>][] = [
      [
        'opt-out',
        () =>
          call(t.app, 'DELETE', apiPaths.multifactor('email', sub, 'opt-out'), {
            token: owner.token,
            body: {},
          }),
      ],
      [
        'opt-in',
        () =>
          call(t.app, 'PUT', apiPaths.multifactor('email', sub, 'opt-in'), { token: owner.token, body: {} }),
      ],
      [
        'reset',
        () =>
          call(t.app, 'DELETE', apiPaths.multifactor('email', sub, 'reset'), {
            token: owner.token,
            body: { optOut: true },
          }),
      ],
    ];
    for (const [name, step] of steps) {
      t.clock.advance(30_000);
      const other = await signInSession(t.app, account, () => ({ code: totp(secret, t.clock.now) }));
      expect((await isFederated(t.app, other.token, sub)).statusCode, name).toBe(200);
      expect((await step()).status, name).toBe(200);
      expect((await isFederated(t.app, other.token, sub)).statusCode, name).toBe(401);
      // Issue 18: the owner's grant ends as well; its page renews with its cookie and keeps its step-up.
      expect((await isFederated(t.app, owner.token, sub)).statusCode, name).toBe(401);
      owner.token = (await renewSilently(t.app, owner.jar)).access_token;
      expect((await isFederated(t.app, owner.token, sub)).statusCode, name).toBe(200);
    }
  });

  it('a password change of a user with an active factor needs a step-up grant of that session', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const sub = account.user.id;
    const secret = await enrolAuthenticator(t, session);
    const thief = await signInSession(t.app, account, () => ({ code: totp(secret, t.clock.now) }));
    t.clock.advance(FIVE_MINUTES + 30_000);

    const body = { OldPassword: account.password, NewPassword: 'Brand-New-Secret-9' };
    const refused = await call(t.app, 'PUT', apiPaths.passwordChange(sub), { token: thief.token, body });
    expect(refused.status).toBe(403);
    expect(refused.data).toEqual({
      error: expect.stringMatching(/^Step-up verification required/),
      code: API_ERROR_CODES.stepUpRequired,
    });
    // Refused before the password was even checked: nothing counted.
    expect(
      await t.app.storage.sql.get('SELECT count(*) AS n FROM password_change_failures WHERE user_id = ?', [
        sub,
      ]),
    ).toEqual({ n: 0 });

    t.clock.advance(30_000);
    const verified = await call(t.app, 'POST', apiPaths.stepUpVerify(sub, 'google-auth'), {
      token: thief.token,
      body: { passCode: totp(secret, t.clock.now) },
    });
    expect(verified.status).toBe(200);
    expect(
      (await call(t.app, 'PUT', apiPaths.passwordChange(sub), { token: thief.token, body })).status,
    ).toBe(200);
  });
});

describe('row 5: a throttle reserves the attempt before the hash', () => {
  const changePassword = (sub: string, i: number) =>
    [
      'PUT',
      apiPaths.passwordChange(sub),
      { OldPassword: `Wrong-Guess-${i}`, NewPassword: 'Brand-New-Secret-9' },
    ] as const;
  const confirmPassword = (sub: string, i: number) =>
    ['POST', apiPaths.reauthenticate(sub), { password: `Wrong-Guess-${i}` }] as const;

  it.each([
    ['the password change', changePassword],
    ["reauthenticate (Confirm it's you)", confirmPassword],
  ])(
    `a parallel burst of 20 wrong passwords at %s gets at most ${PASSWORD_CHANGE_LIMIT.max} checked`,
    async (_name, attempt) => {
      const account = await newUser(t.app);
      const session = await signInSession(t.app, account);
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => {
          const [method, url, body] = attempt(account.user.id, i);
          return call(t.app, method, url, { token: session.token, body });
        }),
      );
      // Only checked attempts carry the argon2 timing.
      const checked = answers.filter((answer) =>
        String(answer.response.headers['server-timing'] ?? '').includes('argon2'),
      );
      const statuses = answers.map((answer) => answer.status);
      expect(checked).toHaveLength(PASSWORD_CHANGE_LIMIT.max);
      expect(statuses.filter((status) => status === 400)).toHaveLength(PASSWORD_CHANGE_LIMIT.max);
      expect(statuses.filter((status) => status === 429)).toHaveLength(20 - PASSWORD_CHANGE_LIMIT.max);
    },
  );
});

describe('row 6: throttles fail closed; the new-password policy comes before the current password', () => {
  /**
   * Makes every write of the app fail as on storage that went read-only, the deterministic stand-in for a full
   * disk here (a full disk fails only writes that need a new page). SQLite: the app's connection turns query-only
   * (SQLITE_READONLY). PostgreSQL: the database makes every new transaction read-only (25006 on a write) and the
   * app's connections are ended, so its pool opens new ones under that setting. Returns the undo.
   */
  async function breakTheDisk(app: FastifyInstance): Promise<() => Promise<void>> {
    const { database } = app.config;
    if (database.kind === 'sqlite') {
      await app.storage.sql.run('PRAGMA query_only = ON');
      return async () => {
        await app.storage.sql.run('PRAGMA query_only = OFF');
      };
    }
    const readOnly = async (on: boolean) => {
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      try {
        // This session may write whatever the database's setting is now (it is the way back).
        await admin.query('SET default_transaction_read_only = off');
        const name = (await admin.query<{ name: string }>('SELECT quote_ident(current_database()) AS name'))
          .rows[0]?.name;
        await admin.query(
          `ALTER DATABASE ${name} ${on ? 'SET default_transaction_read_only = on' : 'RESET default_transaction_read_only'}`,
        );
        await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
        );
      } finally {
        await admin.end();
      }
    };
    await readOnly(true);
    return () => readOnly(false);
  }

  it('with a read-only data folder, right and wrong current passwords get the same 503, and nothing is checked', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const change = (OldPassword: string) =>
      call(t.app, 'PUT', apiPaths.passwordChange(account.user.id), {
        token: session.token,
        body: { OldPassword, NewPassword: 'Brand-New-Secret-9' },
      });
    const restore = await breakTheDisk(t.app);
    try {
      const right = await change(account.password);
      const wrong = await change('Not-The-Password-1');
      expect(right.status).toBe(503);
      expect(wrong.status).toBe(503);
      expect(right.data).toEqual(wrong.data);
      expect(right.response.headers['retry-after']).toBeDefined();
      expect(right.response.headers['server-timing']).toBeUndefined();
    } finally {
      await restore();
    }
    expect((await change(account.password)).status).toBe(200);
  });

  it('with a read-only data folder, right and wrong step-up codes get the same 503', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const secret = await enrolAuthenticator(t, session);
    const verify = (passCode: string) =>
      call(t.app, 'POST', apiPaths.stepUpVerify(account.user.id, 'google-auth'), {
        token: session.token,
        body: { passCode },
      });
    const restore = await breakTheDisk(t.app);
    try {
      const right = await verify(totp(secret, t.clock.now));
      const wrong = await verify('000000');
      expect([right.status, wrong.status]).toEqual([503, 503]);
      expect(right.data).toEqual(wrong.data);
    } finally {
      await restore();
    }
    expect((await verify(totp(secret, t.clock.now))).status).toBe(200);
  });

  it('a bad new password is refused with the policy text whatever the current password, and counts nothing', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    for (const OldPassword of [account.password, 'Not-The-Password-1']) {
      const refused = await call(t.app, 'PUT', apiPaths.passwordChange(account.user.id), {
        token: session.token,
        body: { OldPassword, NewPassword: 'short' },
      });
      expect(refused.status).toBe(400);
      expect(refused.data.error).toContain(PASSWORD_RULE_SERVER_ERRORS.length);
      expect(refused.data.error).not.toContain(PASSWORD_CHANGE_ERRORS.wrongCurrentPassword);
      expect(refused.response.headers['server-timing']).toBeUndefined();
    }
  });
});

describe('row 10 (second half): an authenticator secret that cannot be opened', () => {
  it('answers 503 and still counts the attempt', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const secret = await enrolAuthenticator(t, session);
    // The sealed secret as another key would have sealed it (e.g. a restored database with another key).
    await t.app.storage.sql.run(
      "UPDATE user_factors SET secret_enc = 'v1.AAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA.AAAA' WHERE user_id = ?",
      [account.user.id],
    );
    const answer = await call(t.app, 'POST', apiPaths.stepUpVerify(account.user.id, 'google-auth'), {
      token: session.token,
      body: { passCode: totp(secret, t.clock.now) },
    });
    expect(answer.status).toBe(503);
    expect(answer.data).toEqual({
      error: 'Authenticator codes cannot be checked right now. Try again later.',
      code: 'service_unavailable',
    });
    const counted = await t.app.storage.sql.get(
      "SELECT count(*) AS n FROM factor_throttle_events WHERE user_id = ? AND kind = 'wrong-code'",
      [account.user.id],
    );
    expect(counted).toEqual({ n: 1 });
  });
});

describe("row 11 (second half): the provider's store keeps no redeemable token", () => {
  it('stores ids of sessions and refresh tokens only as hashes; a refresh token read from the file redeems nothing', async () => {
    const browser = await browserOf(t.app, await newUser(t.app));
    const refreshToken = browser.tokens.refresh_token ?? '';
    const rows = await t.app.storage.sql.all<{ model: string; id: string; payload: string }>(
      'SELECT model, id, payload FROM oidc_payloads WHERE account_id = ?',
      [browser.user.id],
    );
    expect(rows.map((row) => row.model).sort()).toEqual(
      expect.arrayContaining(['Grant', 'RefreshToken', 'Session']),
    );
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(refreshToken);
    const sessionCookie = browser.jar.header().match(/(?:^|; )_session=([^;]+)/)?.[1] ?? '';
    expect(sessionCookie).not.toBe('');
    expect(dump).not.toContain(sessionCookie);
    const stored = rows.find((row) => row.model === 'RefreshToken');
    expect(stored?.id).toBe(createHash('sha256').update(refreshToken).digest('base64url'));
    expect((await refreshRequest(t.app, stored?.id ?? '')).statusCode).toBe(400);
    expect((await refreshRequest(t.app, refreshToken)).statusCode).toBe(200);
  });
});

describe('two tabs refreshing at once', () => {
  it('the just-rotated refresh token stays usable for a grace period; a replay after it ends the grant', async () => {
    const browser = await browserOf(t.app, await newUser(t.app));
    const old = browser.tokens.refresh_token ?? '';
    const [tabA, tabB] = await Promise.all([refreshRequest(t.app, old), refreshRequest(t.app, old)]);
    expect([tabA.statusCode, tabB.statusCode]).toEqual([200, 200]);
    const latest = tabB.json<Tokens>();
    expect((await isFederated(t.app, latest.access_token, browser.user.id)).statusCode).toBe(200);

    // Past the grace period the old token is a replay: the grant ends (and with it every token of it).
    await t.app.storage.sql.run(
      "UPDATE oidc_payloads SET consumed_at = consumed_at - 31 WHERE model = 'RefreshToken' AND id = ?",
      [createHash('sha256').update(old).digest('base64url')],
    );
    expect((await refreshRequest(t.app, old)).statusCode).toBe(400);
    expect((await isFederated(t.app, latest.access_token, browser.user.id)).statusCode).toBe(401);
  });
});
