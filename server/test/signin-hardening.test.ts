/**
 * The embedded provider's sign-in pages as an attacker meets them: parallel bursts of wrong passwords, a full
 * or read-only database, strangers locking an email, forged form posts. Each is driven through the real pages
 * with inject() on the vitest project's storage (SQLite or PostgreSQL), with the app's clock moved by hand. What only
 * a SQLite file has (another process holding its write lock, a full file) is in sqlite/signin-hardening.test.ts.
 */
import { decodeJwt } from 'jose';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { WRITE_LOCK_KEY } from '../src/db/postgres-write-gate.js';
import { Directory } from '../src/directory/directory.js';
import type { Mailbox } from '../src/mail/mailbox.js';
import { formatUtc, subjectOf } from '../src/notifications/texts.js';
import { CSRF_FIELD } from '../src/oidc/interactions/csrf.js';
import {
  DEVICE_COOKIE,
  DEVICE_COOKIE_MAX_AGE_S,
  deviceCookie,
  readDevice,
} from '../src/oidc/interactions/device-cookie.js';
import {
  FORM_FROM_ANOTHER_SITE,
  FORM_NOT_VALID,
  SIGN_IN_UNAVAILABLE,
} from '../src/oidc/interactions/pages.js';
import { SignInKeys } from '../src/oidc/interactions/secrets.js';
import { STORAGE_RETRY_AFTER_SECONDS } from '../src/http/storage-unavailable.js';
import { SIGN_IN_LIMIT } from '../src/throttles/limits.js';
import { SIGN_IN_EVENTS, SqlThrottleEvents } from '../src/storage/throttle-events.js';
import { Throttle } from '../src/throttles/throttle.js';
import {
  authorizeUrl,
  CookieJar,
  exchangeCode,
  follow,
  pkcePair,
  tempDir,
  type Tokens,
  appForBlock,
  type TestApp,
} from './helpers.js';
import {
  enrolAuthenticator,
  newUser,
  startClockedApp,
  totp,
  type ClockedApp,
  type Session,
} from './security-helpers.js';
import { isPostgresProject, openProjectDatabase } from './support/postgres.js';

const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const PORTAL_ORIGIN = 'http://localhost:3000';

/** The hidden fields of the page's form (the CSRF token). */
function hiddenFields(html: string): Record<string, string> {
  return Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], m[2]]),
  );
}

function formActionOf(html: string): string {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form on the page: ${html.slice(0, 300)}`);
  return action.replace(/&amp;/g, '&');
}

const alertOf = (page: LightMyRequestResponse) => /role="alert">([^<]+)</.exec(page.body)?.[1] ?? '';

interface PostOptions {
  /** Leave out the page's hidden fields (a forged post). */
  withoutHidden?: boolean;
  headers?: Record<string, string>;
}

/** One browser's sign-in in progress: its cookies, its current page, and posts of that page's form. */
async function openSignIn(app: FastifyInstance, jar = new CookieJar()) {
  const { verifier, challenge } = pkcePair();
  let page = await follow(
    app,
    jar,
    await app.inject({ url: authorizeUrl({ challenge }), headers: { cookie: jar.header() } }),
  );
  if (!page.body.includes('<form method="post"')) throw new Error(`no sign-in page: ${page.statusCode}`);

  /** Posts the current form (with its hidden fields unless told otherwise): the answer to the post itself. */
  async function postOnly(fields: Record<string, string>, options: PostOptions = {}) {
    const response = await app.inject({
      method: 'POST',
      url: formActionOf(page.body),
      headers: {
        cookie: jar.header(),
        'content-type': 'application/x-www-form-urlencoded',
        ...options.headers,
      },
      payload: new URLSearchParams({
        ...(options.withoutHidden ? {} : hiddenFields(page.body)),
        ...fields,
      }).toString(),
    });
    jar.store(response);
    return response;
  }

  return {
    jar,
    get page() {
      return page;
    },
    postOnly,
    /** Posts the current form and follows redirects; a page with a form becomes the current one. */
    async submit(fields: Record<string, string>, options?: PostOptions) {
      const next = await follow(app, jar, await postOnly(fields, options));
      if (next.body.includes('<form method="post"')) page = next;
      return next;
    },
    async tokens(done: LightMyRequestResponse): Promise<Tokens> {
      return exchangeCode(app, { callback: new URL(String(done.headers.location)), jar, verifier });
    },
  };
}

/** Signs in with the password (and a code when `code` is given) through the pages; returns tokens and jar. */
async function signInThroughPages(
  app: FastifyInstance,
  account: { user: { email: string }; password: string },
  { jar, code }: { jar?: CookieJar; code?: () => string } = {},
) {
  const signIn = await openSignIn(app, jar);
  let done = await signIn.submit({ email: account.user.email, password: account.password });
  if (code && done.statusCode === 200) done = await signIn.submit({ action: 'verify', code: code() });
  if (done.statusCode !== 303) throw new Error(`sign-in did not finish: ${done.statusCode} ${alertOf(done)}`);
  return { tokens: await signIn.tokens(done), jar: signIn.jar };
}

async function sessionOf(
  app: FastifyInstance,
  account: Awaited<ReturnType<typeof newUser>>,
): Promise<Session> {
  const { tokens } = await signInThroughPages(app, account);
  const { sid } = decodeJwt(tokens.access_token) as { sid?: string };
  return { ...account, token: tokens.access_token, sid: sid ?? '' };
}

/** The same browser after its sign-in session ended: only its long-lived device cookie is left. */
function deviceCookieOnly(jar: CookieJar): CookieJar {
  const value = new RegExp(`${DEVICE_COOKIE}=([^;]+)`).exec(jar.header())?.[1];
  if (!value) throw new Error('the browser has no device cookie');
  const kept = new CookieJar();
  kept.store({ cookies: [{ name: DEVICE_COOKIE, value }] } as unknown as LightMyRequestResponse);
  return kept;
}

const verifySpy = () => vi.spyOn(Directory.prototype, 'verifyPassword');
const checksFor = (spy: ReturnType<typeof verifySpy>, email: string) =>
  spy.mock.calls.filter(([given]) => given === email).length;

async function mailsTo(t: ClockedApp, email: string) {
  await t.app.notifier.drain();
  return (await (t.app.mailer as Mailbox).list(1000)).filter((m) => m.to === email);
}

describe('failed sign-ins are reserved before argon2 and kept in the database', () => {
  const t = appForBlock(() => startClockedApp());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a parallel burst of 20 wrong passwords for one email gets at most the limit checked by argon2', async () => {
    const account = await newUser(t.app);
    const signIn = await openSignIn(t.app);
    const spy = verifySpy();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        signIn.postOnly({ email: account.user.email, password: `Wrong-${i}` }),
      ),
    );
    const statuses = answers.map((answer) => answer.statusCode);
    expect(checksFor(spy, account.user.email)).toBe(SIGN_IN_LIMIT.max);
    expect(statuses.filter((status) => status === 401)).toHaveLength(SIGN_IN_LIMIT.max);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - SIGN_IN_LIMIT.max);
  });

  it('keeps the failures across a restart: the email stays locked', async () => {
    const dataDir = tempDir();
    const first = await startClockedApp({}, dataDir);
    const account = await newUser(first.app);
    const signIn = await openSignIn(first.app);
    for (let i = 0; i < SIGN_IN_LIMIT.max; i += 1) {
      expect((await signIn.postOnly({ email: account.user.email, password: `Wrong-${i}` })).statusCode).toBe(
        401,
      );
    }
    await first.app.close();
    const second = await startClockedApp({}, dataDir);
    try {
      const again = await openSignIn(second.app);
      const refused = await again.postOnly({ email: account.user.email, password: account.password });
      expect(refused.statusCode).toBe(429);
      expect(alertOf(refused)).toMatch(/^Too many failed sign-in attempts for this email\./);
    } finally {
      await second.close();
    }
  });

  it('two instances over one database: failures through one lock the email on the other', async () => {
    const dataDir = tempDir();
    // Same data folder: on SQLite the same file; in the postgres project startApp gives both the folder's database.
    const one = await startClockedApp({}, dataDir);
    const other = await startClockedApp({}, dataDir);
    try {
      other.clock.now = one.clock.now;
      const account = await newUser(one.app);
      const stranger = await openSignIn(one.app);
      for (let i = 0; i < SIGN_IN_LIMIT.max; i += 1) {
        const refused = await stranger.postOnly({ email: account.user.email, password: `Wrong-${i}` });
        expect(refused.statusCode).toBe(401);
      }
      const elsewhere = await openSignIn(other.app);
      const refused = await elsewhere.postOnly({ email: account.user.email, password: account.password });
      expect(refused.statusCode).toBe(429);
      expect(alertOf(refused)).toMatch(/^Too many failed sign-in attempts for this email\./);
    } finally {
      await other.app.close();
      await one.close();
    }
  });

  it('a success forgets the failures of its key', async () => {
    const account = await newUser(t.app);
    const signIn = await openSignIn(t.app);
    for (let i = 0; i < SIGN_IN_LIMIT.max - 1; i += 1) {
      await signIn.postOnly({ email: account.user.email, password: `Wrong-${i}` });
    }
    expect(
      (await signIn.postOnly({ email: account.user.email, password: account.password })).statusCode,
    ).toBe(303);
    const next = await openSignIn(t.app);
    for (let i = 0; i < SIGN_IN_LIMIT.max; i += 1) {
      expect((await next.postOnly({ email: account.user.email, password: `Wrong-${i}` })).statusCode).toBe(
        401,
      );
    }
  });

  it('stores no email in clear, only a keyed hash', async () => {
    const signIn = await openSignIn(t.app);
    await signIn.postOnly({
      email: 'Someone.Unknown@Example.org',
      password: 'My-Password-In-The-Wrong-Field',
    });
    const keys = (await t.app.storage.sql.all<{ key: string }>('SELECT key FROM signin_failures')).map(
      (row) => row.key,
    );
    expect(keys.some((key) => /someone|unknown|example/i.test(key))).toBe(false);
    expect(keys.every((key) => /^(email|device):/.test(key))).toBe(true);
  });
});

/** A database of this vitest project's storage, closed (and on PostgreSQL dropped) after the test. */
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const projectDatabase = () => openProjectDatabase(cleanups, { statementTimeoutMs: 30_000 });

describe('the sign-in throttle evicts by time only', () => {
  it('keeps a locked key under a spray of 10 001 other keys, and deletes only rows older than the window', async () => {
    const db = await projectDatabase();
    let now = 1_000_000;
    const throttle = new Throttle(new SqlThrottleEvents(db, SIGN_IN_EVENTS), SIGN_IN_LIMIT, () => now);
    for (let i = 0; i < SIGN_IN_LIMIT.max; i += 1) await throttle.reserve('email:victim');
    // One transaction for the spray (fast on both engines); each reservation still prunes and counts as alone.
    await db.transaction(async (tx) => {
      const spray = new Throttle(new SqlThrottleEvents(tx, SIGN_IN_EVENTS), SIGN_IN_LIMIT, () => now);
      for (let i = 0; i < 10_001; i += 1) await spray.reserve(`email:spray-${i}`);
    });
    expect(await throttle.retryAfterMs('email:victim')).toBe(SIGN_IN_LIMIT.windowMs);
    expect(await throttle.reserve('email:victim')).toEqual({
      kind: 'refused',
      retryAfterMs: SIGN_IN_LIMIT.windowMs,
    });

    now += SIGN_IN_LIMIT.windowMs - 1;
    expect(await throttle.prune()).toBe(0);
    expect(await throttle.retryAfterMs('email:victim')).toBe(1);
    now += 1;
    expect(await throttle.prune()).toBe(SIGN_IN_LIMIT.max + 10_001);
    expect((await throttle.reserve('email:victim')).kind).toBe('reserved');
  });
});

describe('fail closed when the attempt cannot be recorded', () => {
  // PostgreSQL: a write that waits for the write lock gives up after this (57014), for the held-lock test.
  const t = appForBlock(() => startClockedApp({ DATABASE_STATEMENT_TIMEOUT_MS: '1000' }));
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** The answers to a wrong and to the right password, which must be the same 503 page. */
  async function bothPasswords(
    account: Awaited<ReturnType<typeof newUser>>,
    signIn: Awaited<ReturnType<typeof openSignIn>>,
  ) {
    const spy = verifySpy();
    const wrong = await signIn.postOnly({ email: account.user.email, password: 'Wrong-password-1' });
    const right = await signIn.postOnly({ email: account.user.email, password: account.password });
    return { wrong, right, checks: checksFor(spy, account.user.email) };
  }

  function expectSameUnavailablePage(wrong: LightMyRequestResponse, right: LightMyRequestResponse) {
    for (const answer of [wrong, right]) {
      expect(answer.statusCode).toBe(503);
      expect(answer.headers['retry-after']).toBe(String(STORAGE_RETRY_AFTER_SECONDS));
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(alertOf(answer)).toBe(SIGN_IN_UNAVAILABLE);
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
    expect(right.body).toBe(wrong.body);
  }

  it('a read-only database: 503, the same page for a wrong and the right password, nothing checked', async () => {
    const account = await newUser(t.app);
    const signIn = await openSignIn(t.app);
    await readOnly(t, true);
    let answers;
    try {
      answers = await bothPasswords(account, signIn);
    } finally {
      await readOnly(t, false);
    }
    expectSameUnavailablePage(answers.wrong, answers.right);
    expect(answers.checks).toBe(0);
    // Once the database takes writes again, the right password signs in.
    expect(
      (await signIn.postOnly({ email: account.user.email, password: account.password })).statusCode,
    ).toBe(303);
  });

  // SQLite's twin (another process holding the file's write lock) is in sqlite/signin-hardening.test.ts.
  if (isPostgresProject()) {
    it('another instance holding the write lock past the statement timeout: 503, the same page whatever the password', async () => {
      const account = await newUser(t.app);
      const signIn = await openSignIn(t.app);
      const other = new pg.Client({ connectionString: databaseUrlOf(t) });
      await other.connect();
      await other.query(`BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`);
      let answers;
      try {
        answers = await bothPasswords(account, signIn);
      } finally {
        await other.query('ROLLBACK');
        await other.end();
      }
      expectSameUnavailablePage(answers.wrong, answers.right);
      expect(answers.checks).toBe(0);
      expect(
        (await signIn.postOnly({ email: account.user.email, password: account.password })).statusCode,
      ).toBe(303);
    });
  }
});

function databaseUrlOf(t: TestApp): string {
  const { database } = t.config;
  if (database.kind !== 'postgres') throw new Error('not on PostgreSQL');
  return database.url;
}

/**
 * Makes the app's database refuse writes, or take them again. SQLite: its one connection's query_only. PostgreSQL:
 * the database's sessions become read-only (as after a failover to a replica: 25006); the app's open connections
 * are ended so that its pool opens new ones, which start read-only.
 */
async function readOnly(t: TestApp, on: boolean): Promise<void> {
  if (t.app.storage.sql.dialect === 'sqlite') {
    await t.app.storage.sql.run(`PRAGMA query_only = ${on ? 1 : 0}`);
    return;
  }
  const admin = new pg.Client({ connectionString: databaseUrlOf(t) });
  await admin.connect();
  try {
    // This session too starts read-only while the setting is on.
    await admin.query('SET default_transaction_read_only = off');
    const { rows } = await admin.query<{ name: string }>('SELECT current_database() AS name');
    const name = rows[0]?.name ?? '';
    await admin.query(
      on
        ? `ALTER DATABASE "${name}" SET default_transaction_read_only = on`
        : `ALTER DATABASE "${name}" RESET default_transaction_read_only`,
    );
    await admin.query(
      'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
      [name],
    );
  } finally {
    await admin.end();
  }
}

describe('device cookie: a browser that signed in before is not locked out by strangers', () => {
  const t = appForBlock(() => startClockedApp());

  /** A stranger (no cookie) locks the email with wrong passwords. */
  async function lockEmail(email: string) {
    const stranger = await openSignIn(t.app);
    for (let i = 0; i < SIGN_IN_LIMIT.max; i += 1) {
      expect((await stranger.postOnly({ email, password: `Guess-${i}` })).statusCode).toBe(401);
    }
    return stranger;
  }

  it('is set on a successful sign-in: signed, HttpOnly, SameSite=Lax, for the provider only, 180 days', async () => {
    const account = await newUser(t.app);
    const signIn = await openSignIn(t.app);
    const done = await signIn.postOnly({ email: account.user.email, password: account.password });
    expect(done.statusCode).toBe(303);
    const header = [done.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith(`${DEVICE_COOKIE}=`));
    expect(header).toBeDefined();
    const attributes = header!.split(/;\s*/).slice(1);
    expect(attributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'SameSite=Lax', 'Path=/oauth2/default', `Max-Age=${180 * 86_400}`]),
    );
    // http://localhost: not Secure (an https PUBLIC_URL makes it Secure, below).
    expect(attributes).not.toContain('Secure');
    expect(header).toContain(account.user.id);
    // A wrong password sets none.
    const other = await openSignIn(t.app);
    const refused = await other.postOnly({ email: account.user.email, password: 'Wrong-1' });
    expect(String(refused.headers['set-cookie'] ?? '')).not.toContain(DEVICE_COOKIE);
  });

  it('is Secure when the portal is served over https', () => {
    const keys = new SignInKeys(['a-cookie-key']);
    const cookie = deviceCookie({ id: 'A'.repeat(22), accounts: ['00uAbc'] }, keys, {
      path: '/oauth2/default',
      secure: true,
    });
    expect(cookie.split('; ')).toContain('Secure');
    expect(DEVICE_COOKIE_MAX_AGE_S).toBe(180 * 86_400);
  });

  it('the holder’s browser signs in while strangers have locked the email; the stranger stays locked', async () => {
    const account = await newUser(t.app);
    const holder = await signInThroughPages(t.app, account);
    const stranger = await lockEmail(account.user.email);
    // The stranger, even with the right password now: locked.
    expect(
      (await stranger.postOnly({ email: account.user.email, password: account.password })).statusCode,
    ).toBe(429);
    // The holder's browser (its device cookie): signs in.
    const again = await openSignIn(t.app, deviceCookieOnly(holder.jar));
    expect((await again.postOnly({ email: account.user.email, password: account.password })).statusCode).toBe(
      303,
    );
    // The holder's success did not unlock the email for strangers.
    const fresh = await openSignIn(t.app);
    expect((await fresh.postOnly({ email: account.user.email, password: account.password })).statusCode).toBe(
      429,
    );
  });

  it('the device’s own attempts still have the limit', async () => {
    const account = await newUser(t.app);
    const holder = await signInThroughPages(t.app, account);
    const device = await openSignIn(t.app, deviceCookieOnly(holder.jar));
    for (let i = 0; i < SIGN_IN_LIMIT.max; i += 1) {
      expect((await device.postOnly({ email: account.user.email, password: `Forgot-${i}` })).statusCode).toBe(
        401,
      );
    }
    const locked = await device.postOnly({ email: account.user.email, password: account.password });
    expect(locked.statusCode).toBe(429);
    expect(locked.headers['retry-after']).toBe(String(SIGN_IN_LIMIT.windowMs / 1000));
    // Its failures are its own: a browser without the cookie is not locked by them.
    const other = await openSignIn(t.app);
    expect((await other.postOnly({ email: account.user.email, password: account.password })).statusCode).toBe(
      303,
    );
  });

  it('an altered or unsigned cookie, or one of another account, counts as a stranger', async () => {
    const account = await newUser(t.app);
    const victim = await newUser(t.app);
    const holder = await signInThroughPages(t.app, account);
    await lockEmail(victim.user.email);
    const value = /portal_device=([^;]+)/.exec(holder.jar.header())?.[1] ?? '';
    const [id, , mac] = value.split('.');
    const attempts = [
      // The attacker's own device cookie (for `account`), used for the victim.
      holder.jar.header(),
      // The victim's id put into it, with the old signature.
      `${DEVICE_COOKIE}=${id}.${victim.user.id}.${mac}`,
      // No signature.
      `${DEVICE_COOKIE}=${id}.${victim.user.id}`,
    ];
    for (const cookie of attempts) {
      const jar = new CookieJar();
      const signIn = await openSignIn(t.app, jar);
      const refused = await t.app.inject({
        method: 'POST',
        url: formActionOf(signIn.page.body),
        headers: {
          cookie: `${jar.header()}; ${cookie}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        payload: new URLSearchParams({
          ...hiddenFields(signIn.page.body),
          email: victim.user.email,
          password: victim.password,
        }).toString(),
      });
      expect(refused.statusCode, cookie).toBe(429);
    }
    expect(
      readDevice(`${DEVICE_COOKIE}=${id}.${victim.user.id}.${mac}`, new SignInKeys(['x'])),
    ).toBeUndefined();
  });
});

describe('a lockout tells the account holder', () => {
  const t = appForBlock(() => startClockedApp());

  const lockSubject = subjectOf({ type: 'account-locked', reason: 'sign-in', until: 0 });

  it('mails one notice when strangers lock an existing account, not one per refused attempt', async () => {
    const account = await newUser(t.app);
    const stranger = await openSignIn(t.app);
    const headers = { 'user-agent': CHROME_LINUX };
    for (let i = 0; i < SIGN_IN_LIMIT.max - 1; i += 1) {
      await stranger.postOnly({ email: account.user.email, password: `Guess-${i}` }, { headers });
      t.clock.advance(1_000);
    }
    expect(await mailsTo(t, account.user.email)).toEqual([]);
    const lockedAt = t.clock.now;
    await stranger.postOnly({ email: account.user.email, password: 'Guess-last' }, { headers });
    for (let i = 0; i < 5; i += 1) {
      expect((await stranger.postOnly({ email: account.user.email, password: `More-${i}` })).statusCode).toBe(
        429,
      );
    }
    const mails = await mailsTo(t, account.user.email);
    expect(mails.map((m) => m.subject)).toEqual([lockSubject]);
    const { text } = mails[0]!;
    expect(text).toContain('Last attempt from: Chrome on Linux');
    // Locked until the first of the 10 failures leaves the window.
    expect(text).toContain(
      `paused until ${formatUtc(lockedAt - (SIGN_IN_LIMIT.max - 1) * 1_000 + SIGN_IN_LIMIT.windowMs)}`,
    );
    expect(text).not.toMatch(/Guess|More-/);
  });

  it('mails nothing for an email without an account', async () => {
    const email = `nobody-${Date.now()}@example.org`;
    const stranger = await openSignIn(t.app);
    for (let i = 0; i < SIGN_IN_LIMIT.max + 2; i += 1) {
      await stranger.postOnly({ email, password: `Guess-${i}` });
    }
    expect(await mailsTo(t, email)).toEqual([]);
  });

  it('sends at most one notice per lockout period while a slow attacker keeps the email locked', async () => {
    const account = await newUser(t.app);
    const stranger = await openSignIn(t.app);
    // 10 failures spread over the window, then one more each time the oldest leaves it: the email is locked
    // again and again, which is one lockout as far as the holder is concerned.
    for (let i = 0; i < SIGN_IN_LIMIT.max; i += 1) {
      await stranger.postOnly({ email: account.user.email, password: `Guess-${i}` });
      t.clock.advance(60_000);
    }
    t.clock.advance(SIGN_IN_LIMIT.windowMs - SIGN_IN_LIMIT.max * 60_000);
    for (let i = 0; i < 5; i += 1) {
      expect((await stranger.postOnly({ email: account.user.email, password: `Slow-${i}` })).statusCode).toBe(
        401,
      );
      t.clock.advance(60_000);
    }
    expect((await mailsTo(t, account.user.email)).map((m) => m.subject)).toEqual([lockSubject]);
    // A new lockout after a quiet period is told again.
    t.clock.advance(SIGN_IN_LIMIT.windowMs);
    for (let i = 0; i < SIGN_IN_LIMIT.max; i += 1) {
      expect(
        (await stranger.postOnly({ email: account.user.email, password: `Later-${i}` })).statusCode,
      ).toBe(401);
    }
    expect((await mailsTo(t, account.user.email)).map((m) => m.subject)).toEqual([lockSubject, lockSubject]);
  });
});

describe('CSRF on the sign-in forms', () => {
  const t = appForBlock(() => startClockedApp());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('puts a hidden token bound to the interaction in the form', async () => {
    const one = await openSignIn(t.app);
    const two = await openSignIn(t.app);
    const token = hiddenFields(one.page.body)[CSRF_FIELD];
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hiddenFields(two.page.body)[CSRF_FIELD]).not.toBe(token);
  });

  it('lets browsers name the portal in the Origin of their posts (not `null`, as no-referrer would make them)', async () => {
    const { page } = await openSignIn(t.app);
    expect(page.headers['referrer-policy']).toBe('same-origin');
  });

  it('refuses a post without the token, or with another interaction’s, with a plain 403 page; nothing is checked', async () => {
    const account = await newUser(t.app);
    const spy = verifySpy();
    const signIn = await openSignIn(t.app);
    const other = await openSignIn(t.app);
    const fields = { email: account.user.email, password: account.password };
    const forged = [
      await signIn.postOnly(fields, { withoutHidden: true }),
      await signIn.postOnly({ ...fields, [CSRF_FIELD]: '' }, { withoutHidden: true }),
      await signIn.postOnly(
        { ...fields, [CSRF_FIELD]: hiddenFields(other.page.body)[CSRF_FIELD]! },
        { withoutHidden: true },
      ),
    ];
    for (const answer of forged) {
      expect(answer.statusCode).toBe(403);
      expect(answer.headers['content-type']).toMatch(/^text\/html/);
      expect(alertOf(answer)).toBe(FORM_NOT_VALID);
      expect(answer.body).not.toMatch(/at .+\.(ts|js):\d+/);
    }
    expect(checksFor(spy, account.user.email)).toBe(0);
    expect((await signIn.postOnly(fields)).statusCode).toBe(303);
  });

  it('refuses a post whose Origin is another site, even with the token; the portal’s own Origin passes', async () => {
    const account = await newUser(t.app);
    const signIn = await openSignIn(t.app);
    const fields = { email: account.user.email, password: account.password };
    for (const origin of ['https://evil.example', 'null', 'http://localhost:3001']) {
      const refused = await signIn.postOnly(fields, { headers: { origin } });
      expect(refused.statusCode, origin).toBe(403);
      expect(alertOf(refused)).toBe(FORM_FROM_ANOTHER_SITE);
    }
    expect((await signIn.postOnly(fields, { headers: { origin: PORTAL_ORIGIN } })).statusCode).toBe(303);
  });

  it('checks the token on the verification-code step too', async () => {
    const account = await newUser(t.app);
    const secret = await enrolAuthenticator(t, await sessionOf(t.app, account));
    const signIn = await openSignIn(t.app);
    const codePage = await signIn.submit({ email: account.user.email, password: account.password });
    expect(codePage.body).toContain('Verification code');
    expect(hiddenFields(codePage.body)[CSRF_FIELD]).toBeTruthy();
    const forged = await signIn.postOnly(
      { action: 'verify', code: totp(secret, t.clock.now) },
      { withoutHidden: true },
    );
    expect(forged.statusCode).toBe(403);
    expect(
      (
        await signIn.postOnly(
          { action: 'verify', code: totp(secret, t.clock.now) },
          { headers: { origin: 'https://evil.example' } },
        )
      ).statusCode,
    ).toBe(403);
    expect((await signIn.postOnly({ action: 'verify', code: totp(secret, t.clock.now) })).statusCode).toBe(
      303,
    );
  });
});

describe('amr in the ID token', () => {
  const t = appForBlock(() => startClockedApp());

  it('is ["pwd"] for a password sign-in, and adds otp and mfa after a verification code', async () => {
    const account = await newUser(t.app);
    const { tokens } = await signInThroughPages(t.app, account);
    expect(decodeJwt(tokens.id_token).amr).toEqual(['pwd']);

    const secret = await enrolAuthenticator(t, await sessionOf(t.app, account));
    const twoStep = await signInThroughPages(t.app, account, { code: () => totp(secret, t.clock.now) });
    const amr = decodeJwt(twoStep.tokens.id_token).amr as string[];
    expect(amr).toEqual(expect.arrayContaining(['pwd', 'otp', 'mfa']));
    expect(amr).toHaveLength(3);
  });
});
