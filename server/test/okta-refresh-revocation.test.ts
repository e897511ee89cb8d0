/**
 * Okta mode, issue 18 item 5: after a password or 2-step change, the account's refresh tokens for the portal's
 * client are revoked at the org (DELETE /api/v1/users/{userId}/clients/{clientId}/tokens), so another browser's
 * (or a copied) refresh token can no longer mint access tokens whose fresh `iat` would pass the portal's "not
 * before". The org's sessions are kept: the caller's page renews silently with its org session. Against the Okta
 * org stand-in with its default authorization server, driven over fetch as browsers would.
 */
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ERRORS, apiPaths } from 'shared-auth/contract';
import { CHANGE_SAVED_TOKENS_NOT_REVOKED, orgSessions } from '../src/auth/sessions.js';
import { HttpError, refusal } from '../src/http/errors.js';
import type { TestApp } from './helpers.js';
import { inject } from './contract/inject.js';
import { OrgBrowser, type OrgTokens } from './support/okta-browser.js';
import { useOktaOrg } from './support/okta-org/vitest.js';
import {
  newOrgAccount,
  type OrgAccount,
  OKTA_PORTAL_CLIENT_ID,
  startOktaPortal,
  passwordUnlike,
} from './support/okta-portal.js';

const REDIRECT_URI = 'http://localhost:3997/login/callback';
const REVOKE_PATH = '/api/v1/users/{userId}/clients/{clientId}/tokens';

const org = useOktaOrg({
  authorizationServer: {
    clients: [{ clientId: OKTA_PORTAL_CLIENT_ID, redirectUris: [REDIRECT_URI], postLogoutRedirectUris: [] }],
  },
});
let t: TestApp;

beforeAll(async () => {
  t = await startOktaPortal(org());
});

afterAll(async () => {
  await t?.close();
});

type Account = OrgAccount;

/** A user of the org with a password and no factor. */
const newAccount = (): Account => newOrgAccount(org(), 'Robin', 'Hood', 'GB');

const browser = () => new OrgBrowser(org().url, OKTA_PORTAL_CLIENT_ID, REDIRECT_URI);

/** Signs the account in in a new browser: that browser (its org session) and its tokens. */
async function signedIn(account: Account): Promise<{ browser: OrgBrowser; tokens: OrgTokens }> {
  const b = browser();
  const tokens = await b.signIn(account.login, account.password);
  expect(tokens.refresh_token).toEqual(expect.any(String));
  return { browser: b, tokens };
}

const call = (method: 'GET' | 'POST' | 'PUT', url: string, bearer: string, body?: unknown) =>
  inject(t.app, method, url, bearer, body);

const isFederated = (account: Account, bearer: string) =>
  call('GET', apiPaths.isFederated(account.id), bearer);

const newPassword = (account: Account) => passwordUnlike(account.login);

const changePassword = (account: Account, bearer: string, NewPassword: string) =>
  call('PUT', apiPaths.passwordChange(account.id), bearer, { OldPassword: account.password, NewPassword });

/** Turns on email verification with the caller's token (a first factor: its sign-in is fresh). */
async function activateEmail(account: Account, bearer: string) {
  expect((await call('POST', apiPaths.multifactor('email', account.id, 'enroll'), bearer)).status).toBe(200);
  return call('POST', apiPaths.multifactor('email', account.id, 'activate'), bearer, {
    code: org().lastEmailCode(account.id),
  });
}

const revocationsOf = (account: Account) =>
  org()
    .requests()
    .filter((r) => r.template === REVOKE_PATH && r.path.startsWith(`/api/v1/users/${account.id}/`));

/** Another browser's refresh token, and the caller's: both refused; the org's sessions kept; the caller renews. */
async function expectRefreshTokensEnded(
  account: Account,
  caller: { browser: OrgBrowser; tokens: OrgTokens },
  other: { browser: OrgBrowser; tokens: OrgTokens },
): Promise<void> {
  const stolen = await browser().refresh(other.tokens.refresh_token as string);
  expect(stolen).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  const own = await caller.browser.refresh(caller.tokens.refresh_token as string);
  expect(own).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });

  // okta-auth-js then renews silently with the org session, which the change kept: the new token is accepted.
  const renewed = await caller.browser.renewSilently();
  expect(renewed, 'the caller renews with its org session').toBeDefined();
  expect((await isFederated(account, (renewed as OrgTokens).access_token)).status).toBe(200);
  expect((await caller.browser.refresh(renewed?.refresh_token as string)).status).toBe(200);

  expect(org().user(account.id)?.sessionRevocations).toEqual([]);
  expect(
    org()
      .requests()
      .filter((r) => r.operationId === 'revokeUserSessions'),
  ).toEqual([]);
  expect(revocationsOf(account).map((r) => [r.method, r.path, r.status])).toEqual([
    ['DELETE', `/api/v1/users/${account.id}/clients/${OKTA_PORTAL_CLIENT_ID}/tokens`, 204],
  ]);
}

describe("after a change, the account's refresh tokens for the portal's client are revoked at the org", () => {
  it('after a password change: another session cannot refresh, the caller renews silently', async () => {
    const account = newAccount();
    const bystander = newAccount();
    const caller = await signedIn(account);
    const other = await signedIn(account);
    const bystanders = await signedIn(bystander);
    // Before the change another session refreshes as usual (and its rotated token is the one it holds).
    const before = await other.browser.refresh(other.tokens.refresh_token as string);
    expect(before.status).toBe(200);
    other.tokens = before.body as unknown as OrgTokens;

    const changed = await changePassword(account, caller.tokens.access_token, newPassword(account));
    expect(changed.status).toBe(200);

    await expectRefreshTokensEnded(account, caller, other);
    // The caller's token that made the change goes on (spared by the "not before"); another user's session too.
    expect((await isFederated(account, caller.tokens.access_token)).status).toBe(200);
    expect((await bystanders.browser.refresh(bystanders.tokens.refresh_token as string)).status).toBe(200);
  });

  it('after a 2-step change (email verification activated): another session cannot refresh', async () => {
    const account = newAccount();
    const caller = await signedIn(account);
    const other = await signedIn(account);

    const activated = await activateEmail(account, caller.tokens.access_token);
    expect(activated).toMatchObject({ status: 200, body: { status: 'ACTIVE' } });

    await expectRefreshTokensEnded(account, caller, other);
  });

  it('when the org cannot revoke them: the change stays made and recorded, and the answer is an upstream failure', async () => {
    const account = newAccount();
    const caller = await signedIn(account);
    const other = await signedIn(account);
    const password = newPassword(account);
    // Okta busy for the revocation only, beyond the portal's 3-second budget for a repeatable call.
    org().armRateLimit({ path: REVOKE_PATH, method: 'DELETE', count: 1, resetInSeconds: 60 });

    const answer = await changePassword(account, caller.tokens.access_token, password);
    expect(answer.status).toBe(503);
    expect(answer.body).toMatchObject({ code: 'service_unavailable' });
    expect((answer.body as { error: string }).error).toMatch(/password or 2-step change was saved/);
    expect(answer.headers['retry-after']).toBeUndefined();

    // The change is made at Okta and the portal's part of it committed: the account's "not before" (which refuses
    // the other access tokens of an earlier second) and the holder's notice.
    expect(org().passwordMatches(account.id, password)).toBe(true);
    const mark = await t.app.storage.sql.get<{ not_before: number; except_jti: string }>(
      'SELECT not_before, except_jti FROM account_token_not_before WHERE account_id = ?',
      [account.id],
    );
    expect(Number(mark?.not_before)).toBeGreaterThanOrEqual(Number(decodeJwt(other.tokens.access_token).iat));
    expect(mark?.except_jti).toBe(decodeJwt(caller.tokens.access_token).jti);
    const notices = await t.app.storage.sql.all<{ subject: string }>(
      'SELECT subject FROM notifications WHERE user_id = ?',
      [account.id],
    );
    expect(notices).toHaveLength(1);
  });
});

describe('orgSessions.endOtherSessionsAfterCommit', () => {
  const sessionsOver = (
    revokeRefreshTokens: (userId: string, clientIds: readonly string[]) => Promise<void>,
  ) =>
    orgSessions(
      { findCaller: () => Promise.resolve({ user: undefined, cached: false }), revokeRefreshTokens },
      t.app.storage,
      Date.now,
      ['0oaPortal', '0oaIntegrator'],
    );

  it('revokes for every client whose tokens the API takes', async () => {
    const asked: string[][] = [];
    await sessionsOver(async (userId, clientIds) => {
      asked.push([userId, ...clientIds]);
    }).endOtherSessionsAfterCommit('00uKim');
    expect(asked).toEqual([['00uKim', '0oaPortal', '0oaIntegrator']]);
  });

  it('answers Okta unreachable as Okta mode does (502 upstream_failed), saying the change was saved', async () => {
    const failed = await sessionsOver(() =>
      Promise.reject(refusal(API_ERRORS.upstreamFailed, 'The identity service could not be reached.')),
    )
      .endOtherSessionsAfterCommit('00uKim')
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(HttpError);
    expect(failed).toMatchObject({
      statusCode: 502,
      code: 'upstream_failed',
      message: CHANGE_SAVED_TOKENS_NOT_REVOKED,
      headers: {},
    });
  });
});
