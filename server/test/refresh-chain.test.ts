/**
 * Issue 18, items 1 and 2 (embedded provider): one live refresh token per grant chain, step-up grants bound to
 * the grant chain (the access token's `gid`) rather than to the whole provider session, and a password or 2-step
 * change that ends every grant and refresh token of the account, the caller's included, while the caller's
 * provider session renews silently with its cookie. Each test failed on the code before the fix.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { apiPaths } from 'shared-auth/contract';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { REFRESH_TOKEN_REUSE_GRACE_SECONDS } from '../src/storage/provider.js';
import { refreshRequest, type Tokens } from './helpers.js';
import {
  call,
  clockedAppInStep,
  enrolAuthenticator,
  newUser,
  renewSilently,
  signInSession,
  totp,
} from './security-helpers.js';

const t = clockedAppInStep();

// Only Date is faked: the provider and its store read the time from it, timers and I/O run as usual.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Moves the provider's clock (Date) and the app's clock together. */
function advance(ms: number) {
  vi.setSystemTime(Date.now() + ms);
  t.clock.advance(ms);
}

const isFederated = (app: FastifyInstance, token: string, sub: string) =>
  app.inject({ url: apiPaths.isFederated(sub), headers: { authorization: `Bearer ${token}` } });

const hashOf = (id: string) => createHash('sha256').update(id).digest('base64url');

/** The refresh tokens of an account that were never used (the live ones, whatever their grant). */
async function unusedRefreshTokens(accountId: string): Promise<number> {
  const row = await t.app.storage.sql.get<{ n: number | string }>(
    `SELECT count(*) AS n FROM oidc_payloads
     WHERE model = 'RefreshToken' AND account_id = ? AND consumed_at IS NULL`,
    [accountId],
  );
  return Number(row?.n ?? 0);
}

describe('one live refresh token per grant chain', () => {
  it('a refresh token reused within the grace: 35 s later only one of the two branches still refreshes', async () => {
    const account = await newUser(t.app);
    const owner = await signInSession(t.app, account);
    const copied = owner.tokens.refresh_token ?? '';

    // The owner's tab rotates the token; the attacker's copy is used again within the grace.
    const ownerBranch = await refreshRequest(t.app, copied);
    const attackerBranch = await refreshRequest(t.app, copied);
    expect([ownerBranch.statusCode, attackerBranch.statusCode]).toEqual([200, 200]);

    advance(35_000);
    const first = await refreshRequest(t.app, ownerBranch.json<Tokens>().refresh_token ?? '');
    const second = await refreshRequest(t.app, attackerBranch.json<Tokens>().refresh_token ?? '');
    // The later reuse revoked the earlier successor: never two live.
    expect([first.statusCode, second.statusCode]).toEqual([400, 200]);
    expect(first.json()).toMatchObject({ error: 'invalid_grant' });
    expect(await unusedRefreshTokens(account.user.id)).toBe(1);
  });

  it('two refreshes of the same token at the same moment leave exactly one live successor', async () => {
    const account = await newUser(t.app);
    const owner = await signInSession(t.app, account);
    const old = owner.tokens.refresh_token ?? '';

    const answers = await Promise.all([0, 1, 2].map(() => refreshRequest(t.app, old)));
    // Two tabs racing are both answered (the grace), but only one successor lives.
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    expect(await unusedRefreshTokens(account.user.id)).toBe(1);
    const successors = answers.map((answer) => answer.json<Tokens>().refresh_token ?? '');
    const stored = await t.app.storage.sql.all<{ id: string }>(
      `SELECT id FROM oidc_payloads WHERE model = 'RefreshToken' AND account_id = ? AND consumed_at IS NULL`,
      [account.user.id],
    );
    expect(successors.filter((token) => stored.some((row) => row.id === hashOf(token)))).toHaveLength(1);
  });

  it('the grace lasts a few seconds: a reuse after it ends the grant (and every token of it)', async () => {
    expect(REFRESH_TOKEN_REUSE_GRACE_SECONDS).toBeLessThanOrEqual(5);
    const account = await newUser(t.app);
    const owner = await signInSession(t.app, account);
    const old = owner.tokens.refresh_token ?? '';
    const renewed = (await refreshRequest(t.app, old)).json<Tokens>();

    advance((REFRESH_TOKEN_REUSE_GRACE_SECONDS + 1) * 1000);
    expect((await refreshRequest(t.app, old)).statusCode).toBe(400);
    expect((await refreshRequest(t.app, renewed.refresh_token ?? '')).statusCode).toBe(400);
    expect((await isFederated(t.app, renewed.access_token, account.user.id)).statusCode).toBe(401);
  });
});

describe('step-up grants belong to the grant chain, not to the whole session', () => {
  it('a verification made with one grant of the session is not visible to another grant of it', async () => {
    const account = await newUser(t.app);
    const owner = await signInSession(t.app, account);
    const secret = await enrolAuthenticator(t, owner);
    // A second chain in the same provider session (the attacker's copy was taken from this one).
    const other = await renewSilently(t.app, owner.jar);
    const otherToken = other.access_token;
    expect(decodeJwt(otherToken).sid).toBe(decodeJwt(owner.token).sid);
    expect(decodeJwt(otherToken).gid).not.toBe(decodeJwt(owner.token).gid);

    // Let the enrolment's own grant run out, then verify on the other chain only.
    advance(5 * 60_000 + 1000);
    const verified = await call(t.app, 'POST', apiPaths.stepUpVerify(account.user.id, 'google-auth'), {
      token: otherToken,
      body: { passCode: totp(secret, t.clock.now) },
    });
    expect(verified.status).toBe(200);
    const challenge = (token: string) =>
      call(t.app, 'GET', apiPaths.stepUpChallenge(account.user.id), { token });
    expect((await challenge(otherToken)).data).toMatchObject({ challengeUser: false });
    expect((await challenge(owner.token)).data).toMatchObject({ challengeUser: true });
  });
});

describe('a fork within the grace', () => {
  it("loses the chain's step-up, and the owner's next renewal shuts the copied branch out", async () => {
    const account = await newUser(t.app);
    const owner = await signInSession(t.app, account);
    await enrolAuthenticator(t, owner);
    // The owner's page holds a step-up (the activation's, carried to its renewed chain).
    const challenge = (token: string) =>
      call(t.app, 'GET', apiPaths.stepUpChallenge(account.user.id), { token });
    expect((await challenge(owner.token)).data).toMatchObject({ challengeUser: false });

    // A copy of the owner's refresh token, used again right after the owner's page rotated it.
    const copied = owner.tokens.refresh_token ?? '';
    const ownerBranch = await refreshRequest(t.app, copied);
    const attackerBranch = await refreshRequest(t.app, copied);
    expect([ownerBranch.statusCode, attackerBranch.statusCode]).toEqual([200, 200]);
    const attacker = attackerBranch.json<Tokens>();
    expect((await challenge(attacker.access_token)).data).toMatchObject({ challengeUser: true });

    // The owner's successor was revoked: its page renews with its cookie, which ends the copied branch's refresh
    // token (refresh tokens are bound to the session's current grant).
    expect((await refreshRequest(t.app, ownerBranch.json<Tokens>().refresh_token ?? '')).statusCode).toBe(
      400,
    );
    await renewSilently(t.app, owner.jar);
    expect((await refreshRequest(t.app, attacker.refresh_token ?? '')).statusCode).toBe(400);
  });
});

describe('a password or 2-step change ends every grant of the account, the caller keeps its provider session', () => {
  it("a password change: the copied refresh token dies, the caller's cookie gets fresh tokens with no sign-in page", async () => {
    const account = await newUser(t.app);
    const owner = await signInSession(t.app, account);
    const copied = owner.tokens.refresh_token ?? '';

    const changed = await call(t.app, 'PUT', apiPaths.passwordChange(account.user.id), {
      token: owner.token,
      body: { OldPassword: account.password, NewPassword: 'A-Brand-New-Pass-9' },
    });
    expect(changed.status).toBe(200);

    expect((await refreshRequest(t.app, copied)).statusCode).toBe(400);
    // The caller's own access token ends with its grant; the page renews with the session cookie.
    expect((await isFederated(t.app, owner.token, account.user.id)).statusCode).toBe(401);
    const renewed = await renewSilently(t.app, owner.jar);
    expect(decodeJwt(renewed.access_token).sid).toBe(owner.sid);
    expect((await isFederated(t.app, renewed.access_token, account.user.id)).statusCode).toBe(200);
    expect((await refreshRequest(t.app, renewed.refresh_token ?? '')).statusCode).toBe(200);
    expect((await refreshRequest(t.app, copied)).statusCode).toBe(400);
  });

  it("a 2-step change: the copied refresh token dies, the caller goes on without a new step-up; the copy's holder cannot", async () => {
    const account = await newUser(t.app);
    const owner = await signInSession(t.app, account);
    const copied = owner.tokens.refresh_token ?? '';
    const before = owner.token;

    // enrolAuthenticator renews the owner's tokens silently after the activation, as the page does.
    await enrolAuthenticator(t, owner);
    expect((await refreshRequest(t.app, copied)).statusCode).toBe(400);
    expect((await isFederated(t.app, before, account.user.id)).statusCode).toBe(401);
    expect(owner.token).not.toBe(before);

    // The activation's step-up went over to the caller's next grant: the Security page goes on.
    const challenge = await call(t.app, 'GET', apiPaths.stepUpChallenge(account.user.id), {
      token: owner.token,
    });
    expect(challenge.data).toMatchObject({ challengeUser: false });
    // Another grant of the same session made later does not get it (it was carried once).
    const later = await renewSilently(t.app, owner.jar);
    const laterChallenge = await call(t.app, 'GET', apiPaths.stepUpChallenge(account.user.id), {
      token: later.access_token,
    });
    expect(laterChallenge.data).toMatchObject({ challengeUser: true });
  });
});
