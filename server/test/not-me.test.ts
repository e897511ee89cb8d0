/**
 * "This wasn't me" (issue 22, embedded mode), the attacker's cases first:
 * - the in-page call (POST /api/v1/users/:sub/activity/not-me): only the caller's own events (another account's
 *   id answers as an unknown one), every session of the account ends, the caller's too, with one notice and one
 *   event, all in one transaction (a failing step leaves nothing), no step-up needed, bursts told once;
 * - the link of a method-added notice (GET and POST /not-me): tampered, expired, used, raced, posted from another
 *   site, previewed (GET acts on nothing); with no session at all it removes exactly the method instance it was
 *   made for, signs out everywhere, sends its notice and records its events, or nothing when a step fails.
 * The call's authorization rows: test/security/authorization-matrix.test.ts and the contract matrix; Okta mode:
 * test/contract/not-me.test.ts; the stores on both engines: test/storage/not-me-links.test.ts.
 */
import { API_ERROR_CODES, apiCalls, pathOf } from 'shared-auth/contract';
import { describe, expect, it, vi } from 'vitest';
import { REPORTED_NOT_ME_SUBJECT } from '../src/devices/not-me-mails.js';
import { NOT_ME_EVENT_NOT_FOUND_ERROR } from '../src/devices/not-me.js';
import { NOT_ME_LINK_TTL_MS, NotMeLinkIssuer } from '../src/factors/not-me-links.js';
import { NOT_ME_GONE_HEADING } from '../src/routes/not-me/pages.js';
import { PORTAL, refreshRequest } from './helpers.js';
import {
  call,
  clockedAppInStep,
  enrolAuthenticator,
  enrolEmail,
  newUser,
  signInSession,
  totp,
  type Session,
} from './security-helpers.js';

const t = clockedAppInStep();

const notMeUrl = (sub: string) => pathOf(apiCalls.activityNotMe.path, { sub });

/** The status of a harmless call with the session's current token: 200 alive, 401 signed out. */
const stillAlive = async (session: Session) =>
  (await call(t.app, 'GET', `/api/profile/${session.user.id}/isfederated`, { token: session.token })).status;

interface Mail {
  to: string;
  subject: string;
  text: string;
}

async function mailsTo(email: string): Promise<Mail[]> {
  await t.app.notifier.drain();
  return (await t.app.inject('/dev/mailbox/messages'))
    .json<Mail[]>()
    .filter((message) => message.to === email);
}

const subjectsTo = async (email: string) => (await mailsTo(email)).map((mail) => mail.subject);

const eventsOf = async (userId: string) =>
  (await t.app.storage.activity.list(userId, { since: 0, limit: 50 })).map(
    (event) => `${event.kind}:${event.detail ?? ''}`,
  );

/** The "This wasn't me" link of the newest notice to this address that has one. */
async function linkIn(email: string): Promise<string> {
  const mail = (await mailsTo(email)).find((message) => message.text.includes('/not-me?token='));
  const link = mail && /(http:\/\/\S+\/not-me\?token=[A-Za-z0-9_-]+)/.exec(mail.text)?.[1];
  if (!link) throw new Error(`no "This wasn't me" link mailed to ${email}`);
  return link;
}

const tokenOf = (link: string) => new URL(link).searchParams.get('token') ?? '';

const openLink = (token: string) =>
  t.app.inject({ method: 'GET', url: `/not-me?token=${encodeURIComponent(token)}` });

const postLink = (token: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/not-me',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams({ token }).toString(),
  });

async function factorStatus(userId: string, type: 'googleAuth' | 'email') {
  return (await t.app.storage.factors.factor(userId, type))?.status;
}

/** A holder with an authenticator app whose "method added" notice carries the link; two signed-in sessions. */
async function holderWithAuthenticator() {
  const account = await newUser(t.app);
  const first = await signInSession(t.app, account);
  const secret = await enrolAuthenticator(t, first);
  const second = await signInSession(t.app, account, () => ({ code: totp(secret, t.clock.now) }));
  return { account, first, second, secret, link: await linkIn(account.user.email) };
}

describe('the in-page call: attackers first', () => {
  it("another account's event id answers 404 like an unknown one, and changes nothing", async () => {
    const mallory = await signInSession(t.app, await newUser(t.app));
    const victim = await signInSession(t.app, await newUser(t.app));
    const [victimEvent] = await t.app.storage.activity.list(victim.user.id, { since: 0, limit: 1 });
    expect(victimEvent).toBeDefined();
    const theirs = await call(t.app, 'POST', notMeUrl(mallory.user.id), {
      token: mallory.token,
      body: { eventId: victimEvent!.id },
    });
    const unknown = await call(t.app, 'POST', notMeUrl(mallory.user.id), {
      token: mallory.token,
      body: { eventId: 'AAAAAAAAAAAAAAAAAAAA' },
    });
    for (const answer of [theirs, unknown]) {
      expect(answer.status).toBe(404);
      expect(answer.data).toEqual({ error: NOT_ME_EVENT_NOT_FOUND_ERROR, code: API_ERROR_CODES.notFound });
    }
    expect(await stillAlive(mallory)).toBe(200);
    expect(await stillAlive(victim)).toBe(200);
    expect(await subjectsTo(mallory.user.email)).not.toContain(REPORTED_NOT_ME_SUBJECT);
    expect(await subjectsTo(victim.user.email)).not.toContain(REPORTED_NOT_ME_SUBJECT);
    expect(await eventsOf(victim.user.id)).not.toContain('reported-not-me:signed-in');
  });

  it('refuses a malformed id with 400, a federated user with 403', async () => {
    const holder = await signInSession(t.app, await newUser(t.app));
    const bad = await call(t.app, 'POST', notMeUrl(holder.user.id), {
      token: holder.token,
      body: { eventId: 'not an id!' },
    });
    expect(bad.status).toBe(400);
    const extra = await call(t.app, 'POST', notMeUrl(holder.user.id), {
      token: holder.token,
      body: { eventId: 'AAAAAAAAAAAAAAAAAAAA', sub: 'x' },
    });
    expect(extra.status).toBe(400);
    const federated = await signInSession(t.app, await newUser(t.app, { federated: true }));
    const refused = await call(t.app, 'POST', notMeUrl(federated.user.id), {
      token: federated.token,
      body: { eventId: 'AAAAAAAAAAAAAAAAAAAA' },
    });
    expect(refused.status).toBe(403);
    expect(refused.data).toMatchObject({ code: API_ERROR_CODES.federatedUser });
    expect(await stillAlive(holder)).toBe(200);
  });

  it('a failing step leaves no event and no half state: the sessions live on, nothing is queued', async () => {
    const account = await newUser(t.app);
    const first = await signInSession(t.app, account);
    const second = await signInSession(t.app, account);
    const [event] = await t.app.storage.activity.list(account.user.id, { since: 0, limit: 1 });
    const queue = vi.spyOn(t.app.notifier, 'queueMessage').mockRejectedValueOnce(new Error('outbox down'));
    const failed = await call(t.app, 'POST', notMeUrl(account.user.id), {
      token: first.token,
      body: { eventId: event!.id },
    });
    expect(failed.status).toBe(500);
    queue.mockRestore();
    expect(await stillAlive(first)).toBe(200);
    expect(await stillAlive(second)).toBe(200);
    expect(await eventsOf(account.user.id)).not.toContain('reported-not-me:signed-in');
    expect(await subjectsTo(account.user.email)).not.toContain(REPORTED_NOT_ME_SUBJECT);
  });
});

describe('the in-page call', () => {
  it('with no step-up, signs out every session, this one too: tokens and refresh tokens refused, one notice, one event', async () => {
    const { account, first, second } = await holderWithAuthenticator();
    // The step-up of the set-up runs out: the report must not need one.
    t.clock.advance(10 * 60_000);
    const [event] = await t.app.storage.activity.list(account.user.id, { since: 0, limit: 1 });
    const answer = await call(t.app, 'POST', notMeUrl(account.user.id), {
      token: second.token,
      body: { eventId: event!.id },
    });
    expect(answer.status, JSON.stringify(answer.data)).toBe(200);
    expect(answer.data).toEqual({ status: 'SIGNED_OUT' });
    expect(await stillAlive(first)).toBe(401);
    expect(await stillAlive(second)).toBe(401);
    expect((await refreshRequest(t.app, second.tokens.refresh_token ?? '')).statusCode).toBe(400);
    expect(
      await t.app.storage.sql.all('SELECT * FROM stepup_grants WHERE user_id = ?', [account.user.id]),
    ).toEqual([]);
    const subjects = await subjectsTo(account.user.email);
    expect(subjects.filter((subject) => subject === REPORTED_NOT_ME_SUBJECT)).toHaveLength(1);
    expect((await eventsOf(account.user.id))[0]).toBe(`reported-not-me:${event!.kind}`);
    // The ended session's token is refused from the next call, this one included.
    const again = await call(t.app, 'POST', notMeUrl(account.user.id), {
      token: second.token,
      body: { eventId: event!.id },
    });
    expect(again.status).toBe(401);
  });

  it('a burst of reports with one token: every answer is SIGNED_OUT or 401, one notice and one event', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const [event] = await t.app.storage.activity.list(account.user.id, { since: 0, limit: 1 });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        call(t.app, 'POST', notMeUrl(account.user.id), {
          token: session.token,
          body: { eventId: event!.id },
        }),
      ),
    );
    for (const answer of answers) expect([200, 401]).toContain(answer.status);
    const subjects = await subjectsTo(account.user.email);
    expect(subjects.filter((subject) => subject === REPORTED_NOT_ME_SUBJECT)).toHaveLength(1);
    expect(
      (await eventsOf(account.user.id)).filter((kind) => kind.startsWith('reported-not-me')),
    ).toHaveLength(1);
  });
});

describe('the mailed link: attackers first', () => {
  it('the method-added notice carries the link; only its hash is stored', async () => {
    const { account, link } = await holderWithAuthenticator();
    expect(link.startsWith(`${PORTAL}/not-me?token=`)).toBe(true);
    const rows = await t.app.storage.sql.all<{ token_hash: string; method: string }>(
      'SELECT token_hash, method FROM not_me_links WHERE user_id = ?',
      [account.user.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.method).toBe('googleAuth');
    expect(JSON.stringify(rows)).not.toContain(tokenOf(link));
    // The outbox kept the notice sealed until it was sent, and wiped it then.
    const stored = await t.app.storage.sql.all<{ text: string }>(
      'SELECT text FROM notifications WHERE user_id = ?',
      [account.user.id],
    );
    expect(JSON.stringify(stored)).not.toContain(tokenOf(link));
  });

  it('tampered, unknown, empty or oversized tokens: a plain page that says the link can no longer be used, 4xx', async () => {
    const { account, first, link } = await holderWithAuthenticator();
    const token = tokenOf(link);
    const tampered = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const bad of [tampered, 'A'.repeat(43), '', 'short']) {
      for (const answer of [await openLink(bad), await postLink(bad)]) {
        expect(answer.statusCode).toBe(410);
        expect(answer.headers['content-type']).toMatch(/^text\/html/);
        expect(answer.body).toContain(NOT_ME_GONE_HEADING);
        expect(answer.headers['referrer-policy']).toBe('no-referrer');
      }
    }
    const oversized = await openLink('A'.repeat(300));
    expect(oversized.statusCode).toBeGreaterThanOrEqual(400);
    expect(oversized.statusCode).toBeLessThan(500);
    expect(await factorStatus(account.user.id, 'googleAuth')).toBe('ACTIVE');
    expect(await stillAlive(first)).toBe(200);
  });

  it('GET only shows what will happen (a link preview fires nothing), with the token in a form, not acted on', async () => {
    const { account, first, link } = await holderWithAuthenticator();
    for (let i = 0; i < 3; i += 1) {
      const page = await openLink(tokenOf(link));
      expect(page.statusCode).toBe(200);
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers['referrer-policy']).toBe('no-referrer');
      expect(page.headers['content-security-policy']).toBeDefined();
      expect(page.body).toContain('<form method="post" action="/not-me">');
      expect(page.body).toContain(`name="token" value="${tokenOf(link)}"`);
      expect(page.body).toContain('Google Authenticator');
      expect(page.body).toContain('Remove it and sign out everywhere');
    }
    expect(await factorStatus(account.user.id, 'googleAuth')).toBe('ACTIVE');
    expect(await stillAlive(first)).toBe(200);
    expect(await eventsOf(account.user.id)).not.toContain('method-removed:googleAuth');
  });

  it('expired after 24 hours (the clock moved): 410, nothing removed; the retention job deletes it', async () => {
    const { account, link } = await holderWithAuthenticator();
    t.clock.advance(NOT_ME_LINK_TTL_MS + 1000);
    expect((await openLink(tokenOf(link))).statusCode).toBe(410);
    expect((await postLink(tokenOf(link))).statusCode).toBe(410);
    expect(await factorStatus(account.user.id, 'googleAuth')).toBe('ACTIVE');
    expect(await t.app.storage.notMeLinks.prune(t.clock.now)).toBeGreaterThanOrEqual(1);
    expect(
      await t.app.storage.sql.all('SELECT * FROM not_me_links WHERE user_id = ?', [account.user.id]),
    ).toEqual([]);
  });

  it('a post from another site is refused (403) and does nothing', async () => {
    const { account, first, link } = await holderWithAuthenticator();
    const refused = await postLink(tokenOf(link), { origin: 'https://evil.example' });
    expect(refused.statusCode).toBe(403);
    expect(await factorStatus(account.user.id, 'googleAuth')).toBe('ACTIVE');
    expect(await stillAlive(first)).toBe(200);
    expect((await openLink(tokenOf(link))).statusCode).toBe(200);
  });

  it('used twice: the second post and any later opening say it can no longer be used', async () => {
    const { link } = await holderWithAuthenticator();
    expect((await postLink(tokenOf(link))).statusCode).toBe(200);
    expect((await postLink(tokenOf(link))).statusCode).toBe(410);
    expect((await openLink(tokenOf(link))).statusCode).toBe(410);
  });

  it('two parallel posts: exactly one acts (one removal notice, one event)', async () => {
    const { account, link } = await holderWithAuthenticator();
    const answers = await Promise.all([postLink(tokenOf(link)), postLink(tokenOf(link))]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 410]);
    const subjects = await subjectsTo(account.user.email);
    expect(
      subjects.filter((subject) => subject === 'Google Authenticator was removed from your F5 account'),
    ).toHaveLength(1);
    expect(
      (await eventsOf(account.user.id)).filter((kind) => kind === 'method-removed:googleAuth'),
    ).toHaveLength(1);
  });

  it('a failing step changes nothing and leaves the link usable (no event, no notice, the method stays)', async () => {
    const { account, first, link } = await holderWithAuthenticator();
    const queue = vi.spyOn(t.app.notifier, 'queueMessage').mockRejectedValueOnce(new Error('outbox down'));
    const failed = await postLink(tokenOf(link));
    queue.mockRestore();
    expect(failed.statusCode).toBe(500);
    expect(failed.headers['content-type']).toMatch(/^text\/html/);
    expect(await factorStatus(account.user.id, 'googleAuth')).toBe('ACTIVE');
    expect(await stillAlive(first)).toBe(200);
    expect(await eventsOf(account.user.id)).not.toContain('method-removed:googleAuth');
    expect((await postLink(tokenOf(link))).statusCode).toBe(200);
  });
});

describe('the mailed link', () => {
  it('with no session at all: removes exactly that method, signs out everywhere, its notice and events, then the reset', async () => {
    const account = await newUser(t.app);
    const first = await signInSession(t.app, account);
    await enrolEmail(t, first);
    const emailLink = await linkIn(account.user.email);
    await enrolAuthenticator(t, first);
    const links = (await mailsTo(account.user.email))
      .map((mail) => /\/not-me\?token=([A-Za-z0-9_-]+)/.exec(mail.text)?.[1])
      .filter((token): token is string => token !== undefined);
    const authenticatorToken = links.find((token) => token !== tokenOf(emailLink))!;
    expect(authenticatorToken).toBeDefined();

    await t.app.storage.preferredMethods.set(account.user.id, 'googleAuth', t.clock.now);
    const done = await postLink(authenticatorToken, {
      origin: 'null',
      'user-agent': 'Mozilla/5.0 Firefox/140.0',
    });
    expect(done.statusCode).toBe(200);
    expect(done.body).toContain('Google Authenticator was removed');
    expect(done.body).toContain(`href="${PORTAL}/oauth2/default/reset-password"`);
    expect(done.headers['set-cookie']).toBeUndefined();
    // Exactly that one: email stays on.
    expect(await factorStatus(account.user.id, 'googleAuth')).toBeUndefined();
    expect(await factorStatus(account.user.id, 'email')).toBe('ACTIVE');
    expect(await t.app.storage.preferredMethods.get(account.user.id)).toBeUndefined();
    expect(await stillAlive(first)).toBe(401);
    const subjects = await subjectsTo(account.user.email);
    expect(subjects).toContain('Google Authenticator was removed from your F5 account');
    const events = await eventsOf(account.user.id);
    expect(events.slice(0, 2)).toEqual(['sessions-signed-out:everywhere', 'method-removed:googleAuth']);
  });

  it('a method removed, then set up again: the old link removes nothing new (bound to the instance), yet signs out', async () => {
    const { account, link } = await holderWithAuthenticator();
    t.clock.advance(60_000);
    // Removed (as the Security page's Remove does, but for the last-method rule), then set up again.
    await t.app.storage.factors.deleteFactor(account.user.id, 'googleAuth');
    const again = await signInSession(t.app, account);
    t.clock.advance(1000);
    await enrolAuthenticator(t, again);
    expect(await factorStatus(account.user.id, 'googleAuth')).toBe('ACTIVE');

    const page = await openLink(tokenOf(link));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('was already removed');
    const done = await postLink(tokenOf(link));
    expect(done.statusCode).toBe(200);
    expect(await factorStatus(account.user.id, 'googleAuth')).toBe('ACTIVE');
    expect(await stillAlive(again)).toBe(401);
    expect((await eventsOf(account.user.id))[0]).toBe('sessions-signed-out:everywhere');
  });

  it("a passkey link removes that passkey only, not the holder's other one", async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const passkey = (id: string) => ({
      id,
      userId: account.user.id,
      credentialId: `cred-${id}`,
      publicKey: 'pQECAyYgASFYIA',
      counter: 0,
      transports: ['internal'],
      aaguid: '00000000-0000-0000-0000-000000000000',
      backedUp: false,
      deviceType: 'singleDevice',
      name: `Key ${id}`,
      createdAt: t.clock.now,
    });
    const theirs = `pk-theirs-${Date.now()}`;
    const mine = `pk-mine-${Date.now()}`;
    await t.app.storage.passkeys.insert(passkey(theirs));
    await t.app.storage.passkeys.insert(passkey(mine));
    const issuer = new NotMeLinkIssuer({ portalUrl: PORTAL, now: () => t.clock.now });
    const link = await issuer.issue(t.app.storage, account.user.id, { method: 'passkey', instance: theirs });

    const page = await openLink(tokenOf(link));
    expect(page.body).toContain(`The passkey &quot;Key ${theirs}&quot;`);
    expect((await postLink(tokenOf(link))).statusCode).toBe(200);
    expect((await t.app.storage.passkeys.list(account.user.id)).map((each) => each.id)).toEqual([mine]);
    expect(await stillAlive(session)).toBe(401);
    expect(await subjectsTo(account.user.email)).toContain('A passkey was removed from your F5 account');
    expect(await eventsOf(account.user.id)).toContain('method-removed:passkey');
  });
});
