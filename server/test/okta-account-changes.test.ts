/**
 * Okta mode, issue 18 item 5, against the Okta org stand-in:
 * - a 2-step factor of the org that the portal does not manage (here Okta Verify's TOTP, token:software:totp with
 *   provider OKTA, enrolled through the Management API) still counts as a factor: a password change then needs a
 *   fresh sign-in (the portal cannot check that factor's codes), while the Security page sees what it saw before;
 * - after a password or 2-step change, the account's access tokens issued before it are refused by the API (the
 *   per-account "not before" in the portal's database, compared with `iat`) but the one that made the change, and
 *   tokens issued after it work, on every instance over the same database.
 */
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCalls, apiPaths, pathOf } from 'shared-auth/contract';
import { accountTag } from '../src/auth/session-changes.js';
import { issuedBeforeChange } from '../src/auth/token-not-before.js';
import { SESSION_ENDED_MESSAGE } from '../src/auth/verifier.js';
import type { TestApp } from './helpers.js';
import { inject } from './contract/inject.js';
import { useOktaOrg } from './support/okta-org/vitest.js';
import {
  newOrgAccount,
  oktaAuthorizationServer,
  startOktaPortal,
  type OrgAccount,
  passwordUnlike,
} from './support/okta-portal.js';

const API_TOKEN = `00${randomBytes(20).toString('hex')}`;
const server = oktaAuthorizationServer();
const org = useOktaOrg({ jwks: server.jwks, apiToken: API_TOKEN });
let t: TestApp;

beforeAll(async () => {
  t = await startOktaPortal(org());
});

afterAll(async () => {
  await t?.close();
});

const nowSeconds = () => Math.floor(Date.now() / 1000);

type Account = OrgAccount;

/** A user of the org with a password and no factor. */
const newAccount = (): Account => newOrgAccount(org(), 'Kim', 'Lee', 'SE');

/** An access token as Okta issues it: signed in `signedInAgo` seconds ago, issued `issuedAgo` seconds ago. */
const token = (account: Account, { signedInAgo = 0, issuedAgo = 0 } = {}) =>
  server.token(
    org(),
    { id: account.id, login: account.login },
    { auth_time: nowSeconds() - signedInAgo, iat: nowSeconds() - issuedAgo },
  );

/** The Management API with an API token, as an admin or Okta's own enrolment would reach it. */
async function admin(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${org().url}${path}`, {
    method,
    headers: {
      authorization: `SSWS ${API_TOKEN}`,
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(response.status, `${method} ${path}`).toBeLessThan(300);
  return (await response.json()) as Record<string, unknown>;
}

/** Enrols and activates Okta Verify's TOTP (token:software:totp, provider OKTA): a factor the portal does not manage. */
async function enrolOktaVerify(account: Account): Promise<void> {
  const factor = await admin('POST', `/api/v1/users/${account.id}/factors`, {
    factorType: 'token:software:totp',
    provider: 'OKTA',
  });
  const secret = (factor._embedded as { activation: { sharedSecret: string } }).activation.sharedSecret;
  const passCode = TOTP.generate({ secret: Secret.fromBase32(secret) });
  const active = await admin(
    'POST',
    `/api/v1/users/${account.id}/factors/${String(factor.id)}/lifecycle/activate`,
    { passCode },
  );
  expect(active.status).toBe('ACTIVE');
}

const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, bearer: string, body?: unknown) =>
  inject(t.app, method, url, bearer, body);

const changePassword = (account: Account, bearer: string, NewPassword: string) =>
  call('PUT', apiPaths.passwordChange(account.id), bearer, { OldPassword: account.password, NewPassword });

const isFederated = (account: Account, bearer: string) =>
  call('GET', apiPaths.isFederated(account.id), bearer);

/** The API's answer to a token whose session ended: 401, the session text, `invalid_token` for the browser. */
function expectEnded(answer: Awaited<ReturnType<typeof call>>): void {
  expect(answer.status).toBe(401);
  expect(answer.body).toMatchObject({ error: SESSION_ENDED_MESSAGE });
  expect(String(answer.headers['www-authenticate'])).toMatch(/error="invalid_token"/);
}

describe('a 2-step factor of the org that the portal does not manage', () => {
  it('counts as a factor: the password change needs a fresh sign-in, which then suffices', async () => {
    const account = newAccount();
    await enrolOktaVerify(account);
    const newPassword = passwordUnlike(account.login);

    // Signed in 10 minutes ago, with the password alone (a phishing proxy's token, say): refused, nothing changed.
    const stale = await token(account, { signedInAgo: 600, issuedAgo: 600 });
    const refused = await changePassword(account, stale, newPassword);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'step_up_required' });
    expect((refused.body as { error: string }).error).toMatch(/Sign in again/);
    expect(org().passwordMatches(account.id, account.password)).toBe(true);

    // The org's own sign-in (which asks for its factors) within the step-up window is the proof.
    const fresh = await token(account);
    const changed = await changePassword(account, fresh, newPassword);
    expect(changed.status).toBe(200);
    expect(org().passwordMatches(account.id, newPassword)).toBe(true);
  });

  it('leaves the Security page as it was: only the portal\u2019s two factors are listed, and no step-up screen is asked for', async () => {
    const account = newAccount();
    await enrolOktaVerify(account);
    const stale = await token(account, { signedInAgo: 600, issuedAgo: 600 });

    const challenge = await call('GET', apiPaths.stepUpChallenge(account.id), stale);
    expect(challenge).toMatchObject({ status: 200, body: { challengeUser: false, activeFactorsData: {} } });
    const details = await call('GET', apiPaths.multifactor('googleauth', account.id, 'details'), stale);
    expect(details).toMatchObject({ status: 200, body: { enrolled: false } });
    // Setting up one of the portal's factors: the "sign in again" proof, as for a first factor.
    const enrol = await call('POST', apiPaths.multifactor('googleauth', account.id, 'enroll'), stale);
    expect(enrol).toMatchObject({
      status: 403,
      body: { code: 'reauthentication_required', proof: 'sign-in' },
    });
  });

  it('is not needed without one: an account with no factor changes its password with any token', async () => {
    const account = newAccount();
    const stale = await token(account, { signedInAgo: 600, issuedAgo: 600 });
    const changed = await changePassword(account, stale, passwordUnlike(account.login));
    expect(changed.status).toBe(200);
  });
});

describe("the account's access tokens issued before a change", () => {
  it('are refused after a password change; tokens issued after it, and other accounts\u2019, still work', async () => {
    const account = newAccount();
    const bystander = newAccount();
    // Another browser's token (signed in a minute ago), the caller's own (issued 2 s ago), a bystander's.
    const other = await token(account, { signedInAgo: 60, issuedAgo: 60 });
    const caller = await token(account, { issuedAgo: 2 });
    const bystanderToken = await token(bystander, { signedInAgo: 60, issuedAgo: 60 });
    expect((await isFederated(account, other)).status).toBe(200);

    const newPassword = passwordUnlike(account.login);
    expect((await changePassword(account, caller, newPassword)).status).toBe(200);

    expectEnded(await isFederated(account, other));
    // The token that made the change is spared: the caller's page goes on, with its step-up grant, and renews
    // with its Okta session (its refresh tokens end: test/okta-refresh-revocation.test.ts).
    expect((await isFederated(account, caller)).status).toBe(200);
    expect((await isFederated(account, await token(account))).status).toBe(200);
    expect((await isFederated(bystander, bystanderToken)).status).toBe(200);
  });

  it('are refused after a 2-step change (a factor activated)', async () => {
    const account = newAccount();
    const other = await token(account, { signedInAgo: 60, issuedAgo: 60 });
    const caller = await token(account, { issuedAgo: 2 });

    // Email verification: enrolment (Okta sends the code) changes nothing yet; its activation does.
    expect((await call('POST', apiPaths.multifactor('email', account.id, 'enroll'), caller)).status).toBe(
      200,
    );
    expect((await isFederated(account, other)).status).toBe(200);
    const code = org().lastEmailCode(account.id);
    const activated = await call('POST', apiPaths.multifactor('email', account.id, 'activate'), caller, {
      code,
    });
    expect(activated).toMatchObject({ status: 200, body: { status: 'ACTIVE' } });

    expectEnded(await isFederated(account, other));
    expect((await isFederated(account, caller)).status).toBe(200);
    expect((await isFederated(account, await token(account))).status).toBe(200);
  });

  it("compares in whole seconds: a token issued in the change's second is accepted, one a second before is not", async () => {
    const account = newAccount();
    const caller = await token(account, { issuedAgo: 2 });
    expect((await changePassword(account, caller, passwordUnlike(account.login))).status).toBe(200);
    const row = await t.app.storage.sql.get<{ not_before: number }>(
      'SELECT not_before FROM account_token_not_before WHERE account_id = ?',
      [account.id],
    );
    const notBefore = Number(row?.not_before);
    expect(Math.abs(notBefore - nowSeconds())).toBeLessThanOrEqual(2);
    const at = (iat: number) =>
      server.token(org(), { id: account.id, login: account.login }, { auth_time: iat, iat });
    expectEnded(await isFederated(account, await at(notBefore - 1)));
    expect((await isFederated(account, await at(notBefore))).status).toBe(200);
  });
});

describe('the "not before" is read from the database (kept at most SESSION_CACHE_MS, dropped by any change)', () => {
  it("refuses at once once another instance's change (its row) is announced, within the bound when it is not", async () => {
    const account = newAccount();
    const other = await token(account, { signedInAgo: 60, issuedAgo: 60 });
    expect((await isFederated(account, other)).status).toBe(200);
    // What another instance's password change writes, in its own transaction on the shared database…
    await t.app.storage.sql.run(
      'INSERT INTO account_token_not_before (account_id, not_before, except_jti) VALUES (?, ?, NULL)',
      [account.id, nowSeconds()],
    );
    // …and announces once committed (PostgreSQL's NOTIFY, heard by this instance's feed).
    await t.app.sessionChanges.publish([accountTag(account.id)]);
    expectEnded(await isFederated(account, other));
    // Unannounced (written behind every instance): refused once this instance's entry is SESSION_CACHE_MS old.
    const later = await token(account, { signedInAgo: 60, issuedAgo: 0 });
    expect((await isFederated(account, later)).status).toBe(200);
    const readAt = performance.now();
    await t.app.storage.sql.run('UPDATE account_token_not_before SET not_before = ? WHERE account_id = ?', [
      nowSeconds() + 60,
      account.id,
    ]);
    await expect.poll(async () => (await isFederated(account, later)).status, { interval: 20 }).toBe(401);
    expect(performance.now() - readAt).toBeLessThan(t.config.SESSION_CACHE_MS + 200);
  });

  it('keeps the later mark when a change with an older clock arrives second', async () => {
    const account = newAccount();
    const caller = await token(account, { issuedAgo: 1 });
    expect((await changePassword(account, caller, passwordUnlike(account.login))).status).toBe(200);
    const read = async () =>
      Number(
        (
          await t.app.storage.sql.get<{ not_before: number }>(
            'SELECT not_before FROM account_token_not_before WHERE account_id = ?',
            [account.id],
          )
        )?.not_before,
      );
    const mark = await read();
    await t.app.accountSessions.endOtherSessions(account.id, undefined, t.app.storage, 'AT.elsewhere');
    expect(await read()).toBeGreaterThanOrEqual(mark);
    await t.app.storage.transaction((tx) =>
      tx.sql.run('UPDATE account_token_not_before SET not_before = not_before + 60 WHERE account_id = ?', [
        account.id,
      ]),
    );
    const ahead = await read();
    await t.app.accountSessions.endOtherSessions(account.id, undefined, t.app.storage, 'AT.behind');
    expect(await read()).toBe(ahead);
  });
});

describe('what does not count as a factor the org manages', () => {
  it('a pending enrolment of another kind: the password change needs no step-up', async () => {
    const account = newAccount();
    // Okta Verify enrolled but never activated.
    await admin('POST', `/api/v1/users/${account.id}/factors`, {
      factorType: 'token:software:totp',
      provider: 'OKTA',
    });
    const stale = await token(account, { signedInAgo: 600, issuedAgo: 600 });
    const changed = await changePassword(account, stale, passwordUnlike(account.login));
    expect(changed.status).toBe(200);
  });
});

describe('issuedBeforeChange', () => {
  const mark = { notBefore: 1_800_000_000, exceptJti: 'AT.caller' };
  it('compares iat in whole seconds and spares only the token that made the change', () => {
    expect(issuedBeforeChange({ iat: mark.notBefore - 1, jti: 'AT.other' }, mark)).toBe(true);
    expect(issuedBeforeChange({ iat: mark.notBefore, jti: 'AT.other' }, mark)).toBe(false);
    expect(issuedBeforeChange({ iat: mark.notBefore - 60, jti: 'AT.caller' }, mark)).toBe(false);
    expect(issuedBeforeChange({ iat: mark.notBefore - 60, jti: 'AT.other' }, undefined)).toBe(false);
  });
  it('refuses a token that cannot show when it was issued, and spares nothing when the change had no jti', () => {
    expect(issuedBeforeChange({ jti: 'AT.other' }, mark)).toBe(true);
    expect(issuedBeforeChange({ iat: '1800000001' as unknown as number }, mark)).toBe(true);
    expect(issuedBeforeChange({ iat: mark.notBefore - 1 }, { ...mark, exceptJti: null })).toBe(true);
  });
});

describe('"sign out everywhere" from the Devices list (issue 22)', () => {
  it("ends the user's sessions at the org with their OAuth tokens, refuses every older token, and notifies", async () => {
    const account = newAccount();
    const older = await token(account, { issuedAgo: 2 });
    const caller = await token(account, { issuedAgo: 2 });
    const answer = await call(
      'POST',
      pathOf(apiCalls.sessionsSignOutEverywhere.path, { sub: account.id }),
      caller,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(org().user(account.id)?.sessionRevocations).toMatchObject([
      { via: 'revokeUserSessions', oauthTokens: true },
    ]);
    // The caller's own token too: everywhere means this device as well.
    for (const bearer of [older, caller]) {
      const refused = await call('GET', apiPaths.isFederated(account.id), bearer);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ error: SESSION_ENDED_MESSAGE });
    }
    const notices = await t.app.storage.sql.all<{ subject: string }>(
      'SELECT subject FROM notifications WHERE user_id = ?',
      [account.id],
    );
    expect(notices).toEqual([{ subject: 'Every device was signed out of your F5 account' }]);
  });
});
