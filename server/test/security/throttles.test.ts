/**
 * Every limit of the portal hits (429, a clear message, Retry-After) and recovers once its window has passed,
 * with the app's clock (`app.now`) moved by hand: no test sleeps. The cycles already proven elsewhere are not
 * repeated here:
 *
 * | limit                                           | hits and recovers                                      |
 * | ----------------------------------------------- | ------------------------------------------------------ |
 * | wrong codes: step-up verify and activate        | test/contract/throttles.test.ts (both backends)        |
 * | wrong codes: sign-in code step                  | here                                                   |
 * | wrong current passwords: password change        | password.test.ts "throttle of wrong current passwords" |
 * | wrong passwords: "Confirm it's you"             | test/contract/throttles.test.ts (both backends)        |
 * | failed sign-ins per email: sign-in form         | here; bursts, restarts, device cookies, full disk:     |
 * |                                                 | signin-hardening.test.ts                               |
 * | sign-in form posts per address (60 a minute)    | here                                                   |
 * | email sends: enrolment and step-up challenge    | test/contract/throttles.test.ts (both backends)        |
 * | email sends: sign-in "Send code"                | here                                                   |
 * | /api flood guard (API_RATE_LIMIT per address)   | here (rate-limit.test.ts: the refusal's shape)         |
 *
 * @fastify/rate-limit (the /api flood guard) keeps its own clock, Date.now, which these tests move with a spy; the
 * last block's app reads Date.now as its clock too, so the same spy moves the sign-in form's per-address limit.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { apiPaths } from 'shared-auth/contract';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SIGN_IN_LIMIT, WRONG_CODE_LIMIT } from '../../src/throttles/limits.js';
import {
  authorizeUrl,
  CookieJar,
  exchangeCode,
  follow,
  hiddenFields,
  pkcePair,
  startApp,
  type TestApp,
} from '../helpers.js';
import {
  call,
  enrolAuthenticator,
  enrolEmail,
  formAction,
  lastCodeFor,
  newUser,
  signInSession,
  totp,
  clockedAppInStep,
} from '../security-helpers.js';

const TOO_MANY_CODES = /^Too many wrong codes\. For your security, try again in 5 minutes\.$/;

/** A sign-in in progress in one browser: post the current page's form, read where it went. */
async function openSignIn(app: FastifyInstance) {
  const jar = new CookieJar();
  const { verifier, challenge } = pkcePair();
  let page = await follow(app, jar, await app.inject({ url: authorizeUrl({ challenge }) }));
  return {
    get page() {
      return page;
    },
    async post(fields: Record<string, string>): Promise<LightMyRequestResponse> {
      const response = await app.inject({
        method: 'POST',
        url: formAction(page.body),
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        // As a browser posts the form: its hidden CSRF token too.
        payload: new URLSearchParams({ ...hiddenFields(page.body), ...fields }).toString(),
      });
      const next = await follow(app, jar, response);
      // A page with a form (the same step again, or the next one) replaces the current one.
      if (next.body.includes('<form method="post"')) page = next;
      return next;
    },
    /** The sign-in finished: exchange its code for tokens. */
    async tokens(done: LightMyRequestResponse) {
      return exchangeCode(app, { callback: new URL(String(done.headers.location)), jar, verifier });
    },
  };
}

const alertOf = (page: LightMyRequestResponse) => /role="alert">([^<]+)</.exec(page.body)?.[1] ?? '';

describe('limits on the app clock', () => {
  const t = clockedAppInStep();

  it('wrong sign-in codes: 5, then the page says so with Retry-After, then the right code signs in', async () => {
    const account = await newUser(t.app);
    const secret = await enrolAuthenticator(t, await signInSession(t.app, account));
    const signIn = await openSignIn(t.app);
    const codePage = await signIn.post({ email: account.user.email, password: account.password });
    expect(codePage.body).toContain('Verification code');

    const wrong = totp(secret, t.clock.now + 10 * 60_000);
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      expect((await signIn.post({ code: wrong })).statusCode, `attempt ${attempt}`).toBe(400);
    }
    const throttled = await signIn.post({ code: totp(secret, t.clock.now) });
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['content-type']).toMatch(/^text\/html/);
    expect(alertOf(throttled)).toMatch(TOO_MANY_CODES);
    expect(throttled.headers['retry-after']).toBe(String(WRONG_CODE_LIMIT.windowMs / 1000));

    t.clock.advance(WRONG_CODE_LIMIT.windowMs);
    const done = await signIn.post({ code: totp(secret, t.clock.now) });
    expect(done.statusCode).toBe(303);
    const tokens = await signIn.tokens(done);
    expect(tokens.access_token).toBeTruthy();
  });

  it('failed sign-ins: 10 per email in 15 minutes, then 429 with Retry-After, then the right password works', async () => {
    const account = await newUser(t.app);
    const signIn = await openSignIn(t.app);
    for (let attempt = 1; attempt <= 10; attempt += 1) {
      const refused = await signIn.post({ email: account.user.email, password: `Wrong-${attempt}` });
      expect(refused.statusCode, `attempt ${attempt}`).toBe(401);
      t.clock.advance(1_000);
    }
    // The right password, with the email in other letter case: refused all the same.
    const throttled = await signIn.post({
      email: account.user.email.toUpperCase(),
      password: account.password,
    });
    expect(throttled.statusCode).toBe(429);
    expect(alertOf(throttled)).toBe(
      'Too many failed sign-in attempts for this email. Try again in 15 minutes.',
    );
    // The first failure was 10 s ago.
    expect(throttled.headers['retry-after']).toBe(String(SIGN_IN_LIMIT.windowMs / 1000 - 10));

    t.clock.advance(SIGN_IN_LIMIT.windowMs - 10_000);
    const done = await signIn.post({ email: account.user.email, password: account.password });
    expect(done.statusCode).toBe(303);
    expect((await signIn.tokens(done)).access_token).toBeTruthy();
  });

  it('email sends: the sign-in page\'s "Send code by email" shares the 30 s limit with the API\'s step-up send', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    await enrolEmail(t, session);
    const signIn = await openSignIn(t.app);
    await signIn.post({ email: account.user.email, password: account.password });
    expect(
      (
        await call(t.app, 'POST', apiPaths.stepUpSendChallenge(account.user.id, 'email'), {
          token: session.token,
        })
      ).status,
    ).toBe(200);
    t.clock.advance(5_000);
    const refused = await signIn.post({ action: 'send-email', code: '' });
    expect(refused.statusCode).toBe(429);
    expect(alertOf(refused)).toBe(
      'A code was sent less than 30 seconds ago. Wait 25 seconds before asking for another.',
    );
    expect(refused.headers['retry-after']).toBe('25');
    t.clock.advance(25_000);
    const sent = await signIn.post({ action: 'send-email', code: '' });
    expect(sent.statusCode).toBe(200);
    expect(sent.body).toMatch(/We sent a code to .+\. It is valid for 10 minutes\./);
    const done = await signIn.post({ action: 'verify', code: await lastCodeFor(t.app, account.user.email) });
    expect(done.statusCode).toBe(303);
  });
});

describe('per-address limits on the wall clock (Date.now, moved with a spy)', () => {
  let t: TestApp;
  const realNow = Date.now.bind(Date);
  beforeAll(async () => {
    t = await startApp({ API_RATE_LIMIT: '5' }, undefined, { now: () => Date.now() });
  });
  afterAll(async () => t.close());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('/api: API_RATE_LIMIT requests a minute per address, then 429 with Retry-After, then served again', async () => {
    const start = realNow();
    vi.spyOn(Date, 'now').mockImplementation(() => start);
    const get = () => t.app.inject('/api/clientConfiguration/getSettings');
    for (let request = 1; request <= 5; request += 1) expect((await get()).statusCode).toBe(200);
    const refused = await get();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toEqual({
      error: 'Too many requests; wait a minute and try again',
      code: 'rate_limited',
    });
    expect(refused.headers['retry-after']).toBe('60');
    // Another address is not affected.
    expect(
      (await t.app.inject({ url: '/api/clientConfiguration/getSettings', remoteAddress: '10.0.0.9' }))
        .statusCode,
    ).toBe(200);
    vi.spyOn(Date, 'now').mockImplementation(() => start + 60_000);
    expect((await get()).statusCode).toBe(200);
  });

  it('sign-in form: 60 posts a minute per address, then 429 with Retry-After, then accepted again', async () => {
    const start = realNow();
    vi.spyOn(Date, 'now').mockImplementation(() => start);
    const signIn = await openSignIn(t.app);
    // Empty fields: refused at once, no password hashing, but each post counts.
    for (let post = 1; post <= 60; post += 1) {
      expect((await signIn.post({ email: '', password: '' })).statusCode, `post ${post}`).toBe(400);
    }
    const refused = await signIn.post({ email: 'alice@example.com', password: 'Wonderland-42' });
    expect(refused.statusCode).toBe(429);
    // A page in the sign-in pages' look, with the wait in words.
    expect(refused.headers['content-type']).toMatch(/^text\/html/);
    expect(refused.body).toContain('Too many sign-in attempts from your network. Try again in 1 minute.');
    expect(refused.headers['retry-after']).toBe('60');

    vi.spyOn(Date, 'now').mockImplementation(() => start + 60_000);
    const done = await signIn.post({ email: 'alice@example.com', password: 'Wonderland-42' });
    expect(done.statusCode).toBe(303);
  });
});
