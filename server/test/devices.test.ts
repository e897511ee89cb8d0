/**
 * Devices (issue 22, embedded mode): the account's live sessions, described once at sign-in, "last active" kept to
 * the minute, signing out one other, all others, or every one (under step-up, noticed and recorded), the ended
 * sessions' tokens refused by the very next call. The calls' authorization is in the security suite's matrix
 * (test/security/authorization-matrix.test.ts) and fuzzing (test/security/fuzz.test.ts); Okta mode in
 * test/contract/sessions.test.ts.
 */
import {
  API_ERROR_CODES,
  STEP_UP_TTL_MS,
  apiCalls,
  pathOf,
  type AccountSessionList,
} from 'shared-auth/contract';
import { describe, expect, it, vi } from 'vitest';
import { LAST_ACTIVE_RESOLUTION_MS } from '../src/devices/sessions.js';
import { hashedId } from '../src/storage/provider.js';
import { providerSignOut, refreshRequest } from './helpers.js';
import {
  call,
  clockedAppInStep,
  enrolAuthenticator,
  newUser,
  signInSession,
  totp,
  type Session,
} from './security-helpers.js';

const t = clockedAppInStep();

const listUrl = (sub: string) => pathOf(apiCalls.sessions.path, { sub });
const oneUrl = (sub: string, id: string) => pathOf(apiCalls.sessionSignOut.path, { sub, id });
const othersUrl = (sub: string) => pathOf(apiCalls.sessionsSignOutOthers.path, { sub });
const everywhereUrl = (sub: string) => pathOf(apiCalls.sessionsSignOutEverywhere.path, { sub });

async function listOf(session: Session): Promise<AccountSessionList> {
  const answer = await call(t.app, 'GET', listUrl(session.user.id), { token: session.token });
  expect(answer.status, JSON.stringify(answer.data)).toBe(200);
  return apiCalls.sessions.response.parse(answer.data);
}

const alive = async (session: Session) =>
  (await call(t.app, 'GET', `/api/profile/${session.user.id}/isfederated`, { token: session.token })).status;

async function noticesTo(email: string) {
  await t.app.notifier.drain();
  const messages = (await t.app.inject('/dev/mailbox/messages')).json<{ to: string; subject: string }[]>();
  return messages.filter((message) => message.to === email).map((message) => message.subject);
}

const kindsOf = async (userId: string) =>
  (await t.app.storage.activity.list(userId, { since: 0, limit: 50 }))
    .filter((event) => event.kind === 'sessions-signed-out')
    .map((event) => `${event.kind}:${event.detail}`);

const rowsOf = (userId: string) =>
  t.app.storage.sql.all<{ id: string }>('SELECT id FROM account_sessions WHERE user_id = ?', [userId]);

describe('the list', () => {
  it("lists every live session, the caller's own first, coarse and with ids that are not the provider's", async () => {
    const account = await newUser(t.app);
    const first = await signInSession(t.app, account);
    const second = await signInSession(t.app, account);
    const fromFirst = await listOf(first);
    expect(fromFirst.sessions).toHaveLength(2);
    expect(fromFirst.sessions.map((session) => session.current)).toEqual([true, false]);
    const [own] = fromFirst.sessions;
    expect(own).toMatchObject({ country: null, address: '127.0.0.x', lastActiveAt: expect.any(String) });
    expect(Date.parse(own!.signedInAt)).toBeLessThanOrEqual(t.clock.now);
    const fromSecond = await listOf(second);
    expect(fromSecond.sessions[0]).toMatchObject({ id: fromFirst.sessions[1]!.id, current: true });
    // Neither the provider's session id, nor its hash, nor the full address reaches the page.
    const body = JSON.stringify([fromFirst, fromSecond]);
    for (const secret of [first.sid, second.sid, hashedId(first.sid), '127.0.0.1']) {
      expect(body).not.toContain(secret);
    }
  });

  it('"last active" moves at most once a minute per session: one write for a page full of calls', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const touch = vi.spyOn(t.app.storage.accountSessions, 'touch');
    try {
      for (let i = 0; i < 20; i += 1) expect(await alive(session)).toBe(200);
      expect(touch).toHaveBeenCalledTimes(1);
      const before = (await listOf(session)).sessions[0]!.lastActiveAt;
      expect(before).toBe(new Date(t.clock.now).toISOString());
      t.clock.advance(LAST_ACTIVE_RESOLUTION_MS + 1000);
      expect(await alive(session)).toBe(200);
      expect(touch).toHaveBeenCalledTimes(2);
      expect((await listOf(session)).sessions[0]!.lastActiveAt).toBe(new Date(t.clock.now).toISOString());
    } finally {
      touch.mockRestore();
    }
  });

  it('rows go with their session: a sign-out, an expired session, a password change', async () => {
    const account = await newUser(t.app);
    const [a, b, c, d] = [
      await signInSession(t.app, account),
      await signInSession(t.app, account),
      await signInSession(t.app, account),
      await signInSession(t.app, account),
    ];
    expect(await rowsOf(account.user.id)).toHaveLength(4);
    expect((await providerSignOut(t.app, d)).statusCode).toBeLessThan(400);
    expect(await alive(d)).toBe(401);
    expect(await rowsOf(account.user.id)).toHaveLength(3);
    // c's provider session expires: the list leaves it out at once, the prune deletes its row.
    await t.app.storage.sql.run(
      `UPDATE oidc_payloads SET expires_at = 1 WHERE model = 'Session' AND uid = ?`,
      [hashedId(c.sid)],
    );
    expect((await listOf(a)).sessions).toHaveLength(2);
    await t.app.storage.provider.deleteExpired();
    expect(await t.app.devices.prune()).toBe(1);
    // A password change ends the other sessions: b's row goes in its transaction.
    const changed = await call(t.app, 'PUT', `/api/password/${account.user.id}/change`, {
      token: a.token,
      body: { OldPassword: account.password, NewPassword: 'Another-Secure-77' },
    });
    expect(changed.status).toBe(200);
    expect(await alive(b)).toBe(401);
    expect(await rowsOf(account.user.id)).toHaveLength(1);
  });
});

describe('signing out', () => {
  it("one other session: its tokens are refused by the next call, its refresh token dies, it's noticed and recorded", async () => {
    const account = await newUser(t.app);
    const mine = await signInSession(t.app, account);
    const other = await signInSession(t.app, account);
    const { sessions } = await listOf(mine);
    const target = sessions.find((session) => !session.current)!;
    const own = sessions.find((session) => session.current)!;

    const refused = await call(t.app, 'DELETE', oneUrl(account.user.id, own.id), { token: mine.token });
    expect(refused.status).toBe(409);
    expect(refused.data).toMatchObject({ code: API_ERROR_CODES.currentSession });

    expect(await alive(other)).toBe(200);
    const ended = await call(t.app, 'DELETE', oneUrl(account.user.id, target.id), { token: mine.token });
    expect(ended.status).toBe(200);
    expect(apiCalls.sessionSignOut.response.parse(ended.data).sessions.map((s) => s.id)).toEqual([own.id]);
    expect(await alive(other)).toBe(401);
    expect((await refreshRequest(t.app, other.tokens.refresh_token!)).statusCode).toBe(400);
    expect(await alive(mine)).toBe(200);

    // Gone now: the same id is a 404, as another account's would be.
    const again = await call(t.app, 'DELETE', oneUrl(account.user.id, target.id), { token: mine.token });
    expect(again.status).toBe(404);
    expect(await noticesTo(account.user.email)).toEqual(['A device was signed out of your F5 account']);
    expect(await kindsOf(account.user.id)).toEqual(['sessions-signed-out:one']);
  });

  it("another account's session id is a 404, and its session lives on", async () => {
    const mallory = await signInSession(t.app, await newUser(t.app));
    const victim = await signInSession(t.app, await newUser(t.app));
    const [theirs] = (await listOf(victim)).sessions;
    const answer = await call(t.app, 'DELETE', oneUrl(mallory.user.id, theirs!.id), { token: mallory.token });
    expect(answer.status).toBe(404);
    expect(await alive(victim)).toBe(200);
  });

  it('all others, under step-up; a burst of parallel calls ends them once, with one notice', async () => {
    const account = await newUser(t.app);
    const mine = await signInSession(t.app, account);
    const secret = await enrolAuthenticator(t, mine);
    const signInWithCode = () => signInSession(t.app, account, () => ({ code: totp(secret, t.clock.now) }));
    const others = [await signInWithCode()];
    t.clock.advance(30_000);
    others.push(await signInWithCode());
    // The enrolment's step-up grant has run out.
    t.clock.advance(STEP_UP_TTL_MS + 30_000);

    const withoutStepUp = await call(t.app, 'POST', othersUrl(account.user.id), { token: mine.token });
    expect(withoutStepUp.status).toBe(403);
    expect(withoutStepUp.data).toMatchObject({ code: API_ERROR_CODES.stepUpRequired });
    const verified = await call(t.app, 'POST', `/api/stepup/${account.user.id}/google-auth/verify`, {
      token: mine.token,
      body: { passCode: totp(secret, t.clock.now) },
    });
    expect(verified.status).toBe(200);

    const answers = await Promise.all(
      Array.from({ length: 5 }, () => call(t.app, 'POST', othersUrl(account.user.id), { token: mine.token })),
    );
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    for (const answer of answers) {
      expect(apiCalls.sessionsSignOutOthers.response.parse(answer.data).sessions).toEqual([
        expect.objectContaining({ current: true }),
      ]);
    }
    for (const other of others) expect(await alive(other)).toBe(401);
    expect(await alive(mine)).toBe(200);
    const notices = await noticesTo(account.user.email);
    expect(notices.filter((subject) => subject.includes('other devices were signed out'))).toHaveLength(1);
    expect(await kindsOf(account.user.id)).toEqual(['sessions-signed-out:others']);
  });

  it("everywhere: every session ends, the caller's too", async () => {
    const account = await newUser(t.app);
    const mine = await signInSession(t.app, account);
    const other = await signInSession(t.app, account);
    const answer = await call(t.app, 'POST', everywhereUrl(account.user.id), { token: mine.token });
    expect(answer.status).toBe(200);
    expect(answer.data).toEqual({ status: 'SIGNED_OUT' });
    expect(await alive(mine)).toBe(401);
    expect(await alive(other)).toBe(401);
    expect(await rowsOf(account.user.id)).toHaveLength(0);
    expect(await noticesTo(account.user.email)).toEqual(['Every device was signed out of your F5 account']);
    expect(await kindsOf(account.user.id)).toEqual(['sessions-signed-out:everywhere']);
  });
});
