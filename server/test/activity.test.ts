/**
 * Activity (issue 22, embedded mode): every kind of event is written by the change it records, in its
 * transaction (a change that fails leaves no event, an event that cannot be written fails its change), listed
 * newest first by pages, kept 90 days, with the client described coarsely. The call's authorization is in the
 * matrices (test/contract/authorization-matrix.test.ts, test/security/authorization-matrix.test.ts); Okta mode's
 * 501 in test/contract/activity.test.ts.
 */
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { apiCalls, pathOf, type ActivityEvent, type ActivityPage } from 'shared-auth/contract';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ACTIVITY_RETENTION_MS } from '../src/activity/retention.js';
import { signInMethodOf } from '../src/oidc/interactions/routes.js';
import { RESET_MAIL_SUBJECT } from '../src/password/reset-mails.js';
import { SqlActivityEventStore } from '../src/storage/activity-events.js';
import { SoftwareAuthenticator } from './support/software-authenticator.js';
import { CLIENT_ID, CookieJar, follow, hiddenFields, providerSignOut } from './helpers.js';
import {
  call,
  clockedAppInStep,
  enrolAuthenticator,
  enrolEmail,
  formAction,
  newUser,
  renewSilently,
  signInSession,
  totp,
  type Session,
} from './security-helpers.js';
import { authorizeUrl, pkcePair } from './helpers.js';

const t = clockedAppInStep();
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const form = { 'content-type': 'application/x-www-form-urlencoded' };

afterEach(() => {
  vi.restoreAllMocks();
});

const activityUrl = (sub: string, query: Record<string, string> = {}) => {
  const search = new URLSearchParams(query).toString();
  return `${pathOf(apiCalls.activity.path, { sub })}${search ? `?${search}` : ''}`;
};

async function activityOf(session: Session, query: Record<string, string> = {}): Promise<ActivityPage> {
  const answer = await call(t.app, 'GET', activityUrl(session.user.id, query), { token: session.token });
  expect(answer.status, JSON.stringify(answer.data)).toBe(200);
  return apiCalls.activity.response.parse(answer.data);
}

/** Every event of the user, newest first, read straight from storage (no session needed). */
async function eventsOf(userId: string) {
  return t.app.storage.activity.list(userId, { since: 0, limit: 50 });
}
const kindsOf = async (userId: string) =>
  (await eventsOf(userId)).map((event) => (event.detail ? `${event.kind}:${event.detail}` : event.kind));

/** The sign-in page of a new authorization, and a post of its form. */
async function signInPage(app: FastifyInstance, jar: CookieJar) {
  const { challenge } = pkcePair();
  return follow(
    app,
    jar,
    await app.inject({ method: 'GET', url: authorizeUrl({ challenge }), headers: { cookie: jar.header() } }),
  );
}
async function postPassword(app: FastifyInstance, email: string, password: string, userAgent?: string) {
  const jar = new CookieJar();
  const page = await signInPage(app, jar);
  return app.inject({
    method: 'POST',
    url: formAction(page.body),
    headers: { ...form, cookie: jar.header(), ...(userAgent ? { 'user-agent': userAgent } : {}) },
    payload: new URLSearchParams({ ...hiddenFields(page.body), email, password }).toString(),
  });
}

describe('the events, each written by its change', () => {
  it('a sign-in with the password: its method, browser, system, device and coarse address, never the full one', async () => {
    const account = await newUser(t.app);
    const signedIn = await postPassword(t.app, account.user.email, account.password, FIREFOX_LINUX);
    expect(signedIn.statusCode).toBe(303);
    const [event] = await eventsOf(account.user.id);
    expect(event).toMatchObject({
      kind: 'signed-in',
      detail: 'password',
      browser: 'Firefox',
      os: 'Linux',
      deviceType: 'desktop',
      // inject()'s address is the loopback: no country, and only its first three parts.
      country: null,
      address: '127.0.0.x',
      at: t.clock.now,
    });
    const rows = await t.app.storage.sql.all<Record<string, unknown>>(
      'SELECT * FROM activity_events WHERE user_id = ?',
      [account.user.id],
    );
    expect(JSON.stringify(rows)).not.toContain('127.0.0.1');
  });

  it('failed sign-ins of an account: a wrong password, the one that locks, a wrong code; none for an unknown email', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const secret = await enrolAuthenticator(t, session);
    for (let i = 0; i < 9; i += 1) {
      t.clock.advance(1000);
      expect((await postPassword(t.app, account.user.email, 'Wrong-password-1')).statusCode).toBe(401);
    }
    t.clock.advance(1000);
    expect((await postPassword(t.app, account.user.email, 'Wrong-password-1')).statusCode).toBe(401);
    // Refused while locked: not checked, not listed.
    expect((await postPassword(t.app, account.user.email, account.password)).statusCode).toBe(429);
    expect((await postPassword(t.app, 'nobody@example.org', 'Wrong-password-1')).statusCode).toBe(401);
    const kinds = await kindsOf(account.user.id);
    expect(kinds.filter((kind) => kind === 'sign-in-failed:wrong-password')).toHaveLength(9);
    expect(kinds[0]).toBe('sign-in-failed:locked');

    // A new browser after the lockout: a wrong code at the second step, then the right one.
    t.clock.advance(16 * 60 * 1000);
    let round = 0;
    await signInSession(t.app, account, () => {
      round += 1;
      t.clock.advance(1000);
      return { code: round === 1 ? '000000' : totp(secret, t.clock.now) };
    });
    expect((await kindsOf(account.user.id)).slice(0, 2)).toEqual([
      'signed-in:password-and-code',
      'sign-in-failed:wrong-code',
    ]);
  });

  it('2-step changes: added, turned off and on, removed; recovery codes generated and used; the password changed', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const sub = account.user.id;
    t.clock.advance(1000);
    const secret = await enrolAuthenticator(t, session);
    t.clock.advance(1000);
    await enrolEmail(t, session);
    const ok = async (method: 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown) => {
      t.clock.advance(1000);
      const answer = await call(t.app, method, url, { token: session.token, body });
      expect(answer.status, `${url}: ${JSON.stringify(answer.data)}`).toBe(200);
      session.token = (
        await renewSilently(t.app, (session as Session & { jar: CookieJar }).jar)
      ).access_token;
      return answer.data;
    };
    await ok('DELETE', `/api/multifactor/email/${sub}/opt-out`);
    await ok('PUT', `/api/multifactor/email/${sub}/opt-in`, {});
    t.clock.advance(1000);
    const generated = await call(t.app, 'POST', `/api/recoverycodes/${sub}/generate`, {
      token: session.token,
      body: {},
    });
    expect(generated.status).toBe(200);
    t.clock.advance(6 * 60 * 1000);
    const codes = (generated.data as { codes: string[] }).codes;
    const verified = await call(t.app, 'POST', `/api/stepup/${sub}/recovery-code/verify`, {
      token: session.token,
      body: { recoveryCode: codes[0] },
    });
    expect(verified.status).toBe(200);
    await ok('DELETE', `/api/multifactor/email/${sub}/reset`, { optOut: true });
    t.clock.advance(30_000);
    const stepUp = await call(t.app, 'POST', `/api/stepup/${sub}/google-auth/verify`, {
      token: session.token,
      body: { passCode: totp(secret, t.clock.now) },
    });
    expect(stepUp.status).toBe(200);
    await ok('PUT', `/api/password/${sub}/change`, {
      OldPassword: account.password,
      NewPassword: 'Fresh-Start-91',
    });
    expect((await kindsOf(sub)).reverse()).toEqual([
      'signed-in:password',
      'method-added:googleAuth',
      'method-added:email',
      'method-turned-off:email',
      'method-turned-on:email',
      'recovery-codes-generated',
      'recovery-code-used:step-up',
      'method-removed:email',
      'password-changed',
    ]);
  });

  it('passkeys added and removed, a sign-in with a recovery code (its use and the sign-in)', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const sub = account.user.id;
    t.clock.advance(1000);
    await enrolAuthenticator(t, session);
    const renew = async () => {
      session.token = (
        await renewSilently(t.app, (session as Session & { jar: CookieJar }).jar)
      ).access_token;
    };
    const options = await call(t.app, 'POST', pathOf(apiCalls.passkeyRegistrationOptions.path, { sub }), {
      token: session.token,
      body: {},
    });
    expect(options.status, JSON.stringify(options.data)).toBe(200);
    t.clock.advance(1000);
    const registered = await call(t.app, 'POST', pathOf(apiCalls.passkeyRegistrationVerify.path, { sub }), {
      token: session.token,
      body: { response: new SoftwareAuthenticator().register((options.data as { options: never }).options) },
    });
    expect(registered.status, JSON.stringify(registered.data)).toBe(200);
    await renew();
    const generated = await call(t.app, 'POST', `/api/recoverycodes/${sub}/generate`, {
      token: session.token,
      body: {},
    });
    expect(generated.status, JSON.stringify(generated.data)).toBe(200);
    t.clock.advance(1000);
    const id = (registered.data as { id: string }).id;
    const removed = await call(t.app, 'DELETE', pathOf(apiCalls.passkeyRemove.path, { sub, id }), {
      token: session.token,
    });
    expect(removed.status, JSON.stringify(removed.data)).toBe(200);
    const codes = (generated.data as { codes: string[] }).codes;
    t.clock.advance(1000);
    const pages = [
      () => ({ action: 'use-recovery-code' }),
      () => ({ action: 'recovery-code', recoveryCode: codes[1]! }),
    ];
    await signInSession(t.app, account, () => pages.shift()!());
    expect((await kindsOf(sub)).slice(0, 5)).toEqual([
      'signed-in:recovery-code',
      'recovery-code-used:sign-in',
      'method-removed:passkey',
      'recovery-codes-generated',
      'method-added:passkey',
    ]);
  });

  it('a password reset with a mailed link', async () => {
    const account = await newUser(t.app);
    const reset = await t.app.inject({
      method: 'POST',
      url: '/oauth2/default/reset-password',
      remoteAddress: '81.2.69.160',
      headers: form,
      payload: new URLSearchParams({ email: account.user.email }).toString(),
    });
    expect(reset.statusCode).toBe(200);
    await t.app.passwordResets?.idle();
    await t.app.notifier.drain();
    const mail = (await t.app.inject('/dev/mailbox/messages'))
      .json<{ to: string; subject: string; text: string }[]>()
      .find((message) => message.to === account.user.email && message.subject === RESET_MAIL_SUBJECT);
    const token = /reset-password\/link\?token=([A-Za-z0-9_-]+)/.exec(mail?.text ?? '')?.[1] ?? '';
    const done = await t.app.inject({
      method: 'POST',
      url: '/oauth2/default/reset-password/new-password',
      remoteAddress: '81.2.69.160',
      headers: { ...form, 'user-agent': FIREFOX_LINUX },
      payload: new URLSearchParams({
        csrf: token,
        newPassword: 'Brand-new-Pass-77',
        confirmPassword: 'Brand-new-Pass-77',
      }).toString(),
    });
    expect(done.statusCode).toBeLessThan(400);
    expect((await eventsOf(account.user.id))[0]).toMatchObject({
      kind: 'password-reset',
      browser: 'Firefox',
      country: 'GB',
      address: '81.2.69.x',
    });
  });

  it("names a sign-in's method from its amr: a passkey, alone or after the password, is a passkey", () => {
    expect(signInMethodOf(['pwd'])).toBe('password');
    expect(signInMethodOf(['pwd', 'otp', 'mfa'])).toBe('password-and-code');
    expect(signInMethodOf(['hwk', 'user', 'mfa'])).toBe('passkey');
    expect(signInMethodOf(['pwd', 'hwk', 'user', 'mfa'])).toBe('passkey');
    expect(signInMethodOf(['pwd', 'recovery-code', 'mfa'])).toBe('recovery-code');
  });

  it('a sign-out', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    t.clock.advance(1000);
    expect((await providerSignOut(t.app, session, { 'user-agent': FIREFOX_LINUX })).statusCode).toBe(303);
    expect((await eventsOf(account.user.id))[0]).toMatchObject({ kind: 'signed-out', browser: 'Firefox' });
  });
});

describe('in the transaction of the change, or not at all', () => {
  /** Makes every event write succeed, then fail its transaction: the change must roll back with it. */
  const failAfterAppend = () => {
    const append = SqlActivityEventStore.prototype.append;
    return vi.spyOn(SqlActivityEventStore.prototype, 'append').mockImplementation(async function (
      this: SqlActivityEventStore,
      event,
    ) {
      await append.call(this, event);
      throw new Error('the change fails after its event was written');
    });
  };

  it('a password change that fails after its event leaves no event, and the old password', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const before = await kindsOf(account.user.id);
    failAfterAppend();
    const answer = await call(t.app, 'PUT', `/api/password/${account.user.id}/change`, {
      token: session.token,
      body: { OldPassword: account.password, NewPassword: 'Fresh-Start-91' },
    });
    expect(answer.status).toBe(500);
    vi.restoreAllMocks();
    expect(await kindsOf(account.user.id)).toEqual(before);
    expect(await t.app.directory.verifyPassword(account.user.email, account.password)).toBeDefined();
    // No notice either: the change's outbox row went with it.
    await t.app.notifier.drain();
    const mail = (await t.app.inject('/dev/mailbox/messages')).json<{ to: string; subject: string }[]>();
    expect(mail.filter((m) => m.to === account.user.email && /password/i.test(m.subject))).toEqual([]);
  });

  it('a factor activation that fails after its event leaves no event and no active factor', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const sub = account.user.id;
    const enrolled = await call(t.app, 'POST', `/api/multifactor/googleauth/${sub}/enroll`, {
      token: session.token,
      body: {},
    });
    const secret = (enrolled.data as { secret: string }).secret;
    failAfterAppend();
    const activated = await call(t.app, 'POST', `/api/multifactor/googleauth/${sub}/activate`, {
      token: session.token,
      body: { code: totp(secret, t.clock.now) },
    });
    expect(activated.status).toBe(500);
    vi.restoreAllMocks();
    expect(await kindsOf(sub)).toEqual(['signed-in:password']);
    const factors = await t.app.storage.sql.all<{ status: string }>(
      'SELECT status FROM user_factors WHERE user_id = ?',
      [sub],
    );
    expect(factors.map((factor) => factor.status)).toEqual(['PENDING_ACTIVATION']);
  });

  it('a sign-in whose event cannot be kept does not finish, and leaves no event', async () => {
    const account = await newUser(t.app);
    failAfterAppend();
    const jar = new CookieJar();
    const page = await signInPage(t.app, jar);
    const posted = await t.app.inject({
      method: 'POST',
      url: formAction(page.body),
      headers: { ...form, cookie: jar.header() },
      payload: new URLSearchParams({
        ...hiddenFields(page.body),
        email: account.user.email,
        password: account.password,
      }).toString(),
    });
    expect(posted.statusCode).toBeGreaterThanOrEqual(500);
    vi.restoreAllMocks();
    expect(await eventsOf(account.user.id)).toEqual([]);
    // The interaction kept no result: it still asks for the password.
    const again = await t.app.inject({
      url: formAction(page.body).replace(/\/password$/, ''),
      headers: { cookie: jar.header() },
    });
    expect(again.body).toContain('name="password"');
  });

  it('a sign-out whose event cannot be kept keeps the provider session, and leaves no event', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const sessions = () =>
      t.app.storage.sql.all(`SELECT id FROM oidc_payloads WHERE model = 'Session' AND account_id = ?`, [
        account.user.id,
      ]);
    expect(await sessions()).toHaveLength(1);
    failAfterAppend();
    expect(
      (await providerSignOut(t.app, session, { 'user-agent': FIREFOX_LINUX })).statusCode,
    ).toBeGreaterThanOrEqual(500);
    vi.restoreAllMocks();
    expect((await eventsOf(account.user.id)).map((event) => event.kind)).toEqual(['signed-in']);
    expect(await sessions()).toHaveLength(1);
  });
});

describe('the list', () => {
  async function withEvents(count: number) {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    for (let i = 0; i < count; i += 1) {
      t.clock.advance(1000);
      await t.app.activity.recordRefusal(
        { userId: account.user.id, kind: 'sign-in-failed', detail: 'wrong-password' },
        { userAgent: FIREFOX_LINUX, ip: '81.2.69.160' },
      );
    }
    return session;
  }

  it('is newest first, in pages of `limit`, `next` leading to the following page until null', async () => {
    const session = await withEvents(24);
    const first = await activityOf(session);
    expect(first.events).toHaveLength(20);
    expect(first.events[0]).toMatchObject({
      kind: 'sign-in-failed',
      detail: 'wrong-password',
      browser: 'Firefox',
      os: 'Linux',
      deviceType: 'desktop',
      country: 'GB',
      address: '81.2.69.x',
      at: new Date(t.clock.now).toISOString(),
    });
    expect(first.next).not.toBeNull();
    const second = await activityOf(session, { before: first.next ?? '', limit: '3' });
    expect(second.events).toHaveLength(3);
    const third = await activityOf(session, { before: second.next ?? '', limit: '50' });
    expect(third.next).toBeNull();
    const all = [...first.events, ...second.events, ...third.events];
    expect(all).toHaveLength(25);
    expect(all[24]).toMatchObject({ kind: 'signed-in', detail: 'password' });
    const times = all.map((event: ActivityEvent) => event.at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(new Set(all.map((event) => event.id)).size).toBe(25);
  });

  it.each([
    [{ limit: '0' }, 'limit must be a whole number from 1 to 50'],
    [{ limit: '51' }, 'limit must be a whole number from 1 to 50'],
    [{ limit: 'ten' }, 'limit must be a whole number from 1 to 50'],
    [{ limit: '-1' }, 'limit must be a whole number from 1 to 50'],
    [{ before: 'yesterday' }, 'before must be the next of an earlier page'],
    [{ before: `1_${'A'.repeat(19)}'` }, 'before must be the next of an earlier page'],
  ])('refuses %o with 400 and a clear error', async (query, error) => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const answer = await call(t.app, 'GET', activityUrl(account.user.id, query), { token: session.token });
    expect(answer.status).toBe(400);
    expect(answer.data).toEqual({ error, code: 'invalid_request' });
  });

  it('answers any query with a page or a 400 { error, code }, never a 5xx (fast-check)', async () => {
    const session = await withEvents(3);
    const text = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.integer({ min: -100, max: 1000 }).map(String),
      fc.constantFrom('1_AAAAAAAAAAAAAAAAAAAA', '99999999999999999_AAAAAAAAAAAAAAAAAAAA', '%00', '1e3', ' 5'),
    );
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom('before', 'limit', 'other'), text), async (query) => {
        const answer = await t.app.inject({
          url: activityUrl(session.user.id, query),
          headers: { authorization: `Bearer ${session.token}` },
        });
        expect([200, 400], answer.body).toContain(answer.statusCode);
        if (answer.statusCode === 400) expect(Object.keys(answer.json())).toEqual(['error', 'code']);
        else apiCalls.activity.response.parse(JSON.parse(JSON.parse(answer.body) as string));
      }),
      { numRuns: 150 },
    );
  });

  it("is nobody else's: another user's sub is 403, a federated user's own is 403 too", async () => {
    const ada = await signInSession(t.app, await newUser(t.app));
    const bob = await signInSession(t.app, await newUser(t.app));
    const other = await call(t.app, 'GET', activityUrl(ada.user.id), { token: bob.token });
    expect(other.status).toBe(403);
    expect(other.data).toEqual({ error: 'You can only access your own account', code: 'forbidden_sub' });
    const federated = await signInSession(t.app, await newUser(t.app, { federated: true }));
    const own = await call(t.app, 'GET', activityUrl(federated.user.id), { token: federated.token });
    expect(own.status).toBe(403);
    expect(own.data.code).toBe('federated_user');
  });
});

describe('retention', () => {
  it('lists 90 days only, and the job deletes what is older', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const signedInAt = t.clock.now;
    t.clock.advance(ACTIVITY_RETENTION_MS - 1000);
    // Still within 90 days: kept by the job (other tests' older events of this app may go) and listed.
    await t.app.activity.prune();
    expect((await eventsOf(account.user.id)).map((event) => event.at)).toEqual([signedInAt]);
    const fresh = await signInSession(t.app, account);
    expect((await activityOf(fresh)).events.map((event) => event.at)).toContain(
      new Date(signedInAt).toISOString(),
    );
    t.clock.advance(2000);
    // Past 90 days: no longer listed even before the job runs, then deleted.
    expect((await activityOf(fresh)).events.map((event) => event.at)).not.toContain(
      new Date(signedInAt).toISOString(),
    );
    expect(await t.app.activity.prune()).toBeGreaterThanOrEqual(1);
    expect((await eventsOf(account.user.id)).map((event) => event.at)).not.toContain(signedInAt);
    expect(session.user.id).toBe(account.user.id);
  });

  it('runs at start-up and every 10 minutes, as the other clean-ups', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const { startClockedApp } = await import('./security-helpers.js');
      const app = await startClockedApp();
      try {
        const prune = vi.spyOn(app.app.activity, 'prune');
        await vi.advanceTimersByTimeAsync(10 * 60 * 1000);
        expect(prune).toHaveBeenCalledTimes(1);
      } finally {
        await app.close();
      }
    } finally {
      vi.useRealTimers();
    }
  });
});

// CLIENT_ID is imported for symmetry with the other sign-in tests' helpers.
void CLIENT_ID;
