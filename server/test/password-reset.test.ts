/**
 * "Forgot password" on the embedded provider's sign-in pages (issue 20), through the real pages with inject():
 * the request that tells nothing about accounts, the mailed link (lifetime on the app's clock, single use, hash-only
 * storage, bound to the password, voided by a newer link), its throttles (per email under a burst, per address,
 * failing closed), the 2-step requirement, what a reset ends and lifts, and the provider's refusals as pages.
 */
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { loggerOptions, redactUrl } from '../src/config/logger.js';
import { PASSWORD_CHANGED_NOTICE, RESET_DONE_COOKIE } from '../src/oidc/interactions/reset-done-cookie.js';
import {
  CHECK_EMAIL_TITLE,
  EMAIL_ONLY_NOTE,
  LINK_EXPIRED_TITLE,
  LOST_EVERYTHING,
  NEW_PASSWORD_TITLE,
  RECOVERY_CODE_HINT,
  RESET_TITLE,
  RESET_UNAVAILABLE,
  SEND_RESET_LINK,
  checkEmailText,
} from '../src/oidc/interactions/reset-pages.js';
import { FORM_POSTS_PER_MINUTE } from '../src/oidc/interactions/routes.js';
import { FORGOT_PASSWORD } from '../src/oidc/interactions/pages.js';
import { RESET_REQUESTS_PER_ADDRESS_PER_HOUR } from '../src/oidc/interactions/reset-routes.js';
import { RESET_MAIL_SUBJECT } from '../src/password/reset-mails.js';
import { RESET_LINK_TTL_MS, tokenHashOf } from '../src/password/reset.js';
import { SIGN_IN_LIMIT } from '../src/throttles/limits.js';
import { apiCalls, pathOf } from 'shared-auth/contract';
import {
  authorizeUrl,
  CookieJar,
  follow,
  hiddenFields,
  parseTwice,
  pkcePair,
  refreshRequest,
} from './helpers.js';
import { SoftwareAuthenticator } from './support/software-authenticator.js';

type PasskeyOptions = { challenge: string; allowCredentials?: { id: string }[] };
import {
  clockedAppInStep,
  enrolAuthenticator,
  enrolEmail,
  formAction,
  newUser,
  signInSession,
  totp,
} from './security-helpers.js';

const t = clockedAppInStep();
const RESET = '/oauth2/default/reset-password';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const CHROME_ON_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

// Each request from its own address unless a test says otherwise, so the per-address limits stay out of the way.
let addresses = 0;
const nextAddress = () => {
  addresses += 1;
  return `10.20.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
};

function requestReset(email: string, remoteAddress = nextAddress()) {
  return t.app.inject({
    method: 'POST',
    url: RESET,
    remoteAddress,
    headers: { ...FORM, 'user-agent': CHROME_ON_LINUX },
    payload: new URLSearchParams({ email }).toString(),
  });
}

/** What was mailed to this address, oldest first, once the work after the answers and the outbox are done. */
async function mailsTo(email: string): Promise<{ subject: string; text: string }[]> {
  await t.app.passwordResets?.idle();
  await t.app.notifier.drain();
  const mailbox = t.app.mailer as unknown as {
    list(limit?: number): Promise<{ to: string; subject: string; text: string }[]>;
  };
  return (await mailbox.list(1000)).filter((m) => m.to === email).reverse();
}

const tokenIn = (text: string) => /reset-password\/link\?token=([A-Za-z0-9_-]+)/.exec(text)?.[1];

/** Asks for a link and reads its token from the mail. */
async function newLink(email: string): Promise<string> {
  expect((await requestReset(email)).statusCode).toBe(200);
  const mails = (await mailsTo(email)).filter((m) => m.subject === RESET_MAIL_SUBJECT);
  const token = tokenIn(mails.at(-1)?.text ?? '');
  if (!token) throw new Error(`no reset link mailed to ${email}`);
  return token;
}

const openLink = (token: string) =>
  t.app.inject({ method: 'GET', url: `${RESET}/link?token=${token}`, remoteAddress: nextAddress() });

function postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return t.app.inject({
    method: 'POST',
    url: `${RESET}/${path}`,
    remoteAddress: nextAddress(),
    headers: { ...FORM, 'user-agent': CHROME_ON_LINUX, ...headers },
    payload: new URLSearchParams(fields).toString(),
  });
}

const NEW_PASSWORD = 'Brand-new-Pass-77';
const setPassword = (token: string, password = NEW_PASSWORD, confirm = password) =>
  postForm('new-password', { csrf: token, newPassword: password, confirmPassword: confirm });

const alertOf = (page: LightMyRequestResponse) =>
  /role="alert">([\s\S]*?)<\/(?:p|div)>/.exec(page.body)?.[1] ?? '';

function expectPage(answer: LightMyRequestResponse, status: number) {
  expect(answer.statusCode).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^text\/html/);
}

/** A sign-in page of a new sign-in, in a browser (its cookie jar). */
async function openSignIn(jar = new CookieJar()) {
  const { challenge } = pkcePair();
  const page = await follow(
    t.app,
    jar,
    await t.app.inject({
      method: 'GET',
      url: authorizeUrl({ challenge }),
      headers: { cookie: jar.header() },
    }),
  );
  const post = (fields: Record<string, string>) =>
    t.app.inject({
      method: 'POST',
      url: formAction(page.body),
      headers: { ...FORM, cookie: jar.header() },
      payload: new URLSearchParams({ ...hiddenFields(page.body), ...fields }).toString(),
    });
  return { page, jar, post };
}

/** Strangers lock the email's sign-in with wrong passwords. */
async function lockSignIn(email: string) {
  const stranger = await openSignIn();
  for (let i = 0; i < SIGN_IN_LIMIT.max; i += 1) {
    expect((await stranger.post({ email, password: `Wrong-guess-${i}` })).statusCode).toBe(401);
  }
}

describe('asking for a link', () => {
  it('the sign-in page links "Forgot password?" to "Reset your password": Email and "Send reset link"', async () => {
    const { page } = await openSignIn();
    expect(page.body).toContain(`<a href="${RESET}">${FORGOT_PASSWORD}</a>`);
    const form = await t.app.inject({ method: 'GET', url: RESET });
    expectPage(form, 200);
    expect(form.body).toContain(`<h1>${RESET_TITLE}</h1>`);
    expect(form.body).toContain('<label for="email">Email</label>');
    expect(form.body).toContain(`>${SEND_RESET_LINK}</button>`);
  });

  it('answers the same page for an account, no account, a federated and a locked account', async () => {
    const account = await newUser(t.app);
    const federated = await newUser(t.app, { federated: true });
    const locked = await newUser(t.app);
    await lockSignIn(locked.user.email);
    const emails = [account.user.email, 'nobody-here@example.org', federated.user.email, locked.user.email];
    const answers = await Promise.all(emails.map((email) => requestReset(email)));
    for (const [i, answer] of answers.entries()) {
      expectPage(answer, 200);
      expect(answer.body).toContain(`<h1>${CHECK_EMAIL_TITLE}</h1>`);
      // The same body but the echoed email.
      expect(answer.body.replace(emails[i]!, 'EMAIL')).toBe(answers[0]!.body.replace(emails[0]!, 'EMAIL'));
      expect(answer.headers['set-cookie']).toBeUndefined();
    }
    expect(answers[0]!.body).toContain(
      checkEmailText(account.user.email).replace('If an account uses ', 'If an account uses '),
    );
    expect(checkEmailText('a@b.example')).toBe(
      'If an account uses a@b.example, a link to reset its password is on its way. The link works once, for 30 minutes.',
    );

    // The mails differ, after the answers: a link, the federated account's advice, nothing for no account.
    const [link] = await mailsTo(account.user.email);
    expect(link?.subject).toBe(RESET_MAIL_SUBJECT);
    expect(link?.text).toContain(`${t.config.PUBLIC_URL}/oauth2/default/reset-password/link?token=`);
    expect(link?.text).toContain("If you did not ask for this, you don't need to do anything");
    const [sso] = await mailsTo(federated.user.email);
    expect(sso?.subject).toBe(RESET_MAIL_SUBJECT);
    expect(sso?.text).toContain("reset it with your company's identity provider instead");
    expect(tokenIn(sso?.text ?? '')).toBeUndefined();
    expect(await mailsTo('nobody-here@example.org')).toEqual([]);
    expect(tokenIn((await mailsTo(locked.user.email)).at(-1)?.text ?? '')).toBeDefined();
  });

  it('sends at most 3 links an hour for one email under a burst of 10; the others get a 429 page', async () => {
    const { user } = await newUser(t.app);
    const answers = await Promise.all(Array.from({ length: 10 }, () => requestReset(user.email)));
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(3);
    const refused = answers.filter((a) => a.statusCode === 429);
    expect(refused).toHaveLength(7);
    for (const answer of refused) {
      expectPage(answer, 429);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
      expect(alertOf(answer)).toMatch(/try again in \d+ minutes?\.$/);
    }
    expect((await mailsTo(user.email)).filter((m) => m.subject === RESET_MAIL_SUBJECT)).toHaveLength(3);
    // An email nobody uses is counted alike: the refusal says nothing about accounts.
    const none = await Promise.all(Array.from({ length: 4 }, () => requestReset('no-account-9@example.org')));
    expect(none.map((a) => a.statusCode).sort()).toEqual([200, 200, 200, 429]);
    // An hour later it may ask again.
    t.clock.advance(60 * 60 * 1000);
    expect((await requestReset(user.email)).statusCode).toBe(200);
  });

  it('limits requests per address, with a 429 page that says how long to wait', async () => {
    const address = '10.99.0.1';
    for (let i = 0; i < RESET_REQUESTS_PER_ADDRESS_PER_HOUR; i += 1) {
      expect((await requestReset(`spray-${i}@example.org`, address)).statusCode).toBe(200);
    }
    const refused = await requestReset('spray-last@example.org', address);
    expectPage(refused, 429);
    expect(alertOf(refused)).toMatch(/^Too many requests from your network\. Try again in \d+ minutes?\.$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await requestReset('spray-last@example.org', '10.99.0.2')).statusCode).toBe(200);
  });

  it('fails closed: a database that takes no write refuses with a 503 page, the same for every email, no mail', async () => {
    const { user } = await newUser(t.app);
    await t.app.storage.sql.run('PRAGMA query_only = 1');
    let answers: LightMyRequestResponse[];
    try {
      answers = [await requestReset(user.email), await requestReset('nobody-else@example.org')];
    } finally {
      await t.app.storage.sql.run('PRAGMA query_only = 0');
    }
    for (const answer of answers) {
      expectPage(answer, 503);
      expect(answer.headers['retry-after']).toBeDefined();
      expect(alertOf(answer)).toBe(RESET_UNAVAILABLE);
    }
    expect(answers[0]!.body).toBe(answers[1]!.body);
    expect(await mailsTo(user.email)).toEqual([]);
  });

  it('refuses a request posted from another site with a page', async () => {
    const answer = await t.app.inject({
      method: 'POST',
      url: RESET,
      headers: { ...FORM, origin: 'https://evil.example' },
      payload: 'email=someone%40example.org',
    });
    expectPage(answer, 403);
  });
});

describe('the link', () => {
  it('is stored only as a hash: the token is in no row of its table', async () => {
    const { user } = await newUser(t.app);
    const token = await newLink(user.email);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await t.app.storage.sql.all<Record<string, unknown>>(
      'SELECT * FROM password_reset_tokens WHERE user_id = ?',
      [user.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).toBe(tokenHashOf(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    // Its mail was sealed in the outbox until sent, and is not kept there since.
    const outbox = await t.app.storage.sql.all<Record<string, unknown>>(
      'SELECT * FROM notifications WHERE user_id = ?',
      [user.id],
    );
    expect(outbox).toHaveLength(1);
    expect(JSON.stringify(outbox)).not.toContain(token);
  });

  it('opens "Choose a new password" with no-referrer; its token moves into the form; the log redacts it', async () => {
    const { user } = await newUser(t.app);
    const token = await newLink(user.email);
    const page = await openLink(token);
    expectPage(page, 200);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.body).toContain(`<h1>${NEW_PASSWORD_TITLE}</h1>`);
    expect(page.body).toContain('<label for="new-password">New Password</label>');
    expect(page.body).toContain('<label for="confirm-password">Confirm Password</label>');
    expect(hiddenFields(page.body).csrf).toBe(token);
    expect(formAction(page.body)).toBe(`${RESET}/new-password`);
    // The live checklist: the shared policy's rules, the script a file of this origin (CSP 'self').
    expect(page.body).toContain('data-rule="length"');
    expect(page.body).toContain('At least 8 characters');
    expect(page.body).toContain(`<script type="module" src="${RESET}/page.js"></script>`);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'self'/);
    const script = await t.app.inject({ method: 'GET', url: `${RESET}/page.js` });
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
    expect(script.body).toContain("from './password-policy.js'");
    expect(script.body).toContain('history.replaceState');
    const policy = await t.app.inject({ method: 'GET', url: `${RESET}/password-policy.js` });
    expect(policy.statusCode).toBe(200);
    expect(policy.body).toContain('export function passwordRuleResults');
    // The request log's serializer (config/logger.ts) names the link's path without its token.
    const serializers = (
      loggerOptions({ LOG_LEVEL: 'info' }) as { serializers: { req(r: object): { url: string } } }
    ).serializers;
    const logged = serializers.req({ method: 'GET', url: `${RESET}/link?token=${token}` });
    expect(logged.url).toBe(`${RESET}/link?token=%5Bredacted%5D`);
    expect(redactUrl(`${RESET}/link?token=${token}`)).not.toContain(token);
  });

  it('works for 30 minutes of the app clock', async () => {
    const { user } = await newUser(t.app);
    const token = await newLink(user.email);
    t.clock.advance(RESET_LINK_TTL_MS - 1000);
    expect((await openLink(token)).statusCode).toBe(200);
    t.clock.advance(1000);
    const expired = await openLink(token);
    expectPage(expired, 410);
    expect(expired.body).toContain(`<h1>${LINK_EXPIRED_TITLE}</h1>`);
    expect(expired.body).toContain(`<a href="${RESET}">Ask for a new link</a>`);
    expectPage(await setPassword(token), 410);
  });

  it('works once', async () => {
    const { user } = await newUser(t.app);
    const token = await newLink(user.email);
    expect((await setPassword(token)).statusCode).toBe(303);
    expectPage(await setPassword(token, 'Another-Pass-88'), 410);
    expectPage(await openLink(token), 410);
    expectPage(await openLink('not-a-token'), 410);
  });

  it('is voided by a password change, and by a newer link', async () => {
    const a = await newUser(t.app);
    const changed = await newLink(a.user.email);
    await t.app.directory.setPassword(a.user.id, 'Changed-Elsewhere-9');
    expectPage(await openLink(changed), 410);
    expectPage(await setPassword(changed), 410);

    const b = await newUser(t.app);
    const older = await newLink(b.user.email);
    const newer = await newLink(b.user.email);
    expectPage(await openLink(older), 410);
    expect((await openLink(newer)).statusCode).toBe(200);
  });

  it('refuses a new password against the shared policy, one sentence per rule, and a confirmation that differs', async () => {
    const { user } = await newUser(t.app);
    const token = await newLink(user.email);
    const weak = await setPassword(token, 'short');
    expectPage(weak, 400);
    expect(weak.body).toContain('The new password must have 8 to 72 characters.');
    expect(weak.body).toContain('The new password must contain at least 1 number.');
    const mismatch = await setPassword(token, NEW_PASSWORD, 'Something-else-1');
    expectPage(mismatch, 400);
    expect(mismatch.body).toContain('Must match new Password.');
    // Refusals keep the link.
    expect((await setPassword(token)).statusCode).toBe(303);
  });

  it('takes at most 10 posts, then is voided', async () => {
    const { user } = await newUser(t.app);
    const token = await newLink(user.email);
    for (let i = 0; i < 10; i += 1) expect((await setPassword(token, 'weak')).statusCode).toBe(400);
    expectPage(await setPassword(token), 410);
  });
});

describe('a reset', () => {
  it('ends every session, grant, refresh token and step-up grant, lifts the lockout and mails a notice', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const sub = account.user.id;
    const api = (token: string) =>
      t.app.inject({
        method: 'GET',
        url: `/api/profile/${sub}/isfederated`,
        headers: { authorization: `Bearer ${token}` },
      });
    expect((await api(session.token)).statusCode).toBe(200);
    await t.app.storage.grants.put(sub, 'sid:some-session', 'googleAuth', t.clock.now + 60_000);
    await lockSignIn(account.user.email);
    const locked = await openSignIn();
    expect((await locked.post({ email: account.user.email, password: account.password })).statusCode).toBe(
      429,
    );

    const token = await newLink(account.user.email);
    const done = await setPassword(token);
    expect(done.statusCode).toBe(303);
    expect(done.headers.location).toBe(`${t.config.PUBLIC_URL}/`);

    expect((await api(session.token)).statusCode).toBe(401);
    expect((await refreshRequest(t.app, session.tokens.refresh_token!)).statusCode).toBe(400);
    const grants = await t.app.storage.sql.get<{ n: number }>(
      'SELECT COUNT(*) AS n FROM stepup_grants WHERE user_id = ?',
      [sub],
    );
    expect(Number(grants?.n)).toBe(0);
    // The lockout is lifted: the new password signs in at once, from a stranger's browser too.
    const again = await openSignIn();
    expect((await again.post({ email: account.user.email, password: NEW_PASSWORD })).statusCode).toBe(303);

    const notice = (await mailsTo(account.user.email)).at(-1);
    expect(notice?.subject).toBe('Your F5 account password was reset');
    expect(notice?.text).toContain('Every browser and device signed in to your account was signed out.');
    expect(notice?.text).toContain('Browser: Chrome on Linux');
    expect(notice?.text).toContain("If this wasn't you");
    expect(notice?.text).not.toContain('No verification code was asked');
  });

  it('sends the browser to sign in, whose page then says the password has been changed (once)', async () => {
    const { user } = await newUser(t.app);
    const token = await newLink(user.email);
    const done = await setPassword(token);
    const jar = new CookieJar();
    jar.store(done);
    expect(jar.has(RESET_DONE_COOKIE)).toBe(true);
    const { page } = await openSignIn(jar);
    expect(page.body).toContain(PASSWORD_CHANGED_NOTICE);
    expect(page.body).toContain('role="status"');
    expect(jar.has(RESET_DONE_COOKIE)).toBe(false);
    expect((await openSignIn(jar)).page.body).not.toContain(PASSWORD_CHANGED_NOTICE);
    // A forged cookie selects nothing.
    const forged = new CookieJar();
    const { page: plain } = await openSignIn(
      Object.assign(forged, { header: () => `${RESET_DONE_COOKIE}=${t.clock.now + 60_000}.forged` }),
    );
    expect(plain.body).not.toContain(PASSWORD_CHANGED_NOTICE);
  });
});

describe('2-step verification', () => {
  it('asks an authenticator code first: the mailbox alone resets nothing', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const secret = await enrolAuthenticator(t, session);
    const token = await newLink(account.user.email);

    const opened = await openLink(token);
    expectPage(opened, 200);
    expect(opened.headers['referrer-policy']).toBe('no-referrer');
    expect(opened.body).toContain('<h1>2-step verification</h1>');
    expect(opened.body).toContain('<label for="code">Verification code</label>');
    expect(opened.body).not.toContain('Send code by email');
    expect(opened.body).toContain(LOST_EVERYTHING);
    // No recovery codes on this account: no hint that points to them.
    expect(opened.body).not.toContain(RECOVERY_CODE_HINT);
    expect(opened.body).toContain('<a href="https://www.example.com/contact">Contact us</a>');
    expect(hiddenFields(opened.body).csrf).toBe(token);

    // Straight to the new password: refused, the code page again.
    const skipped = await setPassword(token);
    expectPage(skipped, 403);
    expect(skipped.body).toContain('<h1>2-step verification</h1>');
    const wrong = await postForm('verify', { csrf: token, code: '000000' });
    expectPage(wrong, 400);
    expect(alertOf(wrong)).toBe('That verification code is not correct. Check it and try again.');
    const wrongCount = await t.app.storage.throttles.wrongCodes.since(account.user.id, 0);
    expect(wrongCount).toHaveLength(1);

    const right = await postForm('verify', { csrf: token, code: totp(secret, t.clock.now) });
    expectPage(right, 200);
    expect(right.body).toContain(`<h1>${NEW_PASSWORD_TITLE}</h1>`);
    expect(right.body).not.toContain(EMAIL_ONLY_NOTE);
    expect((await setPassword(token)).statusCode).toBe(303);
  });

  it('counts wrong codes with the code throttle: past 5, a 429 page with the wait', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    await enrolAuthenticator(t, session);
    const token = await newLink(account.user.email);
    for (let i = 0; i < 5; i += 1) {
      expect((await postForm('verify', { csrf: token, code: `00000${i}` })).statusCode).toBe(400);
    }
    const throttled = await postForm('verify', { csrf: token, code: '123456' });
    expectPage(throttled, 429);
    expect(Number(throttled.headers['retry-after'])).toBeGreaterThan(0);
    expect(alertOf(throttled)).toMatch(
      /^Too many wrong codes\. For your security, try again in \d+ (minutes?|seconds?)\.$/,
    );
  });

  it('resets an email-only account with the link alone, and its page and notice say so', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    await enrolEmail(t, session);
    const token = await newLink(account.user.email);
    const opened = await openLink(token);
    expect(opened.body).toContain(`<h1>${NEW_PASSWORD_TITLE}</h1>`);
    expect(opened.body).toContain(EMAIL_ONLY_NOTE);
    expect((await setPassword(token)).statusCode).toBe(303);
    const notice = (await mailsTo(account.user.email)).at(-1);
    expect(notice?.subject).toBe('Your F5 account password was reset');
    expect(notice?.text).toContain('No verification code was asked: your only 2-step method is email');
  });
});

describe('a passkey as the second factor', () => {
  /** A new account whose only 2-step method is a passkey (registered through the API). */
  async function passkeyAccount() {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const authenticator = new SoftwareAuthenticator({ userId: account.user.id });
    const api = async (path: string) => {
      const answer = await t.app.inject({
        method: 'POST',
        url: path,
        headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
        payload: path.endsWith('options')
          ? '{}'
          : JSON.stringify({ response: authenticator.register(options) }),
      });
      expect(answer.statusCode, answer.body).toBe(200);
      return parseTwice(answer.body) as { options: PasskeyOptions };
    };
    let options: PasskeyOptions = { challenge: '' };
    options = (await api(pathOf(apiCalls.passkeyRegistrationOptions.path, { sub: account.user.id }))).options;
    await api(pathOf(apiCalls.passkeyRegistrationVerify.path, { sub: account.user.id }));
    return { ...account, authenticator };
  }

  const passkeyOptions = async (token: string, headers: Record<string, string> = {}) => {
    const answer = await postForm('passkey-options', { csrf: token }, headers);
    return { answer, body: JSON.parse(answer.body) as { options?: PasskeyOptions; error?: string } };
  };
  const postPasskey = (token: string, response: unknown) =>
    postForm('verify', { csrf: token, action: 'passkey', passkeyResponse: JSON.stringify(response) });

  it('a passkey-only account proves its passkey first: the mailbox alone resets nothing', async () => {
    const account = await passkeyAccount();
    const token = await newLink(account.user.email);

    const opened = await openLink(token);
    expectPage(opened, 200);
    expect(opened.body).toContain('<h1>2-step verification</h1>');
    expect(opened.body).toContain('Use a passkey');
    expect(opened.body).toContain('data-passkey-options="/oauth2/default/reset-password/passkey-options"');
    // No code to type: no authenticator app, no recovery codes.
    expect(opened.body).not.toContain('<label for="code">');
    expect((await setPassword(token)).statusCode).toBe(403);

    const { answer, body } = await passkeyOptions(token);
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(body.options?.allowCredentials?.map((c) => c.id)).toEqual([
      account.authenticator.credentialId.toString('base64url'),
    ]);
    const passed = await postPasskey(token, account.authenticator.assert(body.options as PasskeyOptions));
    expectPage(passed, 200);
    expect(passed.body).toContain(`<h1>${NEW_PASSWORD_TITLE}</h1>`);
    expect((await setPassword(token)).statusCode).toBe(303);
    // The passkey's use is recorded like a sign-in's.
    const [stored] = await t.app.storage.passkeys.list(account.user.id);
    expect(stored?.lastUsedAt).not.toBeNull();
  });

  it("refuses a challenge of another link, a replayed answer and a wrong user's passkey, each counted as a wrong code", async () => {
    const holder = await passkeyAccount();
    const other = await passkeyAccount();
    const token = await newLink(holder.user.email);
    const otherToken = await newLink(other.user.email);

    // Options of the other account's link: their challenge is bound to that link, not this one.
    const foreign = (await passkeyOptions(otherToken)).body.options as PasskeyOptions;
    const crossLink = await postPasskey(token, holder.authenticator.assert(foreign));
    expectPage(crossLink, 400);
    expect(crossLink.body).toContain('<h1>2-step verification</h1>');

    // The other account's passkey, on this account's own challenge.
    const own = (await passkeyOptions(token)).body.options as PasskeyOptions;
    const wrongUser = await postPasskey(token, other.authenticator.assert(own));
    expectPage(wrongUser, 400);
    const wrongCodes = () => t.app.storage.throttles.wrongCodes.since(holder.user.id, 0);
    expect(await wrongCodes()).toHaveLength(2);

    const fresh = (await passkeyOptions(token)).body.options as PasskeyOptions;
    const answer = holder.authenticator.assert(fresh);
    expectPage(await postPasskey(token, answer), 200);
    // The same answer once more, on a new link: the challenge was used.
    const again = await newLink(holder.user.email);
    expectPage(await postPasskey(again, answer), 400);
    // A right passkey cleared the count (as a right code does); the replay counts anew.
    expect(await wrongCodes()).toHaveLength(1);
  });

  it('an account whose only passkey was blocked as a copy resets with the link, which clears the blocked passkey', async () => {
    const account = await passkeyAccount();
    const [passkey] = await t.app.storage.passkeys.list(account.user.id);
    await t.app.storage.passkeys.markCloned(passkey?.id ?? '', t.clock.now);
    const token = await newLink(account.user.email);
    const opened = await openLink(token);
    expect(opened.body).toContain(`<h1>${NEW_PASSWORD_TITLE}</h1>`);
    expect((await setPassword(token)).statusCode).toBe(303);
    expect(await t.app.storage.passkeys.list(account.user.id)).toEqual([]);
  });

  it('answers the options only while the link still needs a passkey, and never to another site', async () => {
    const account = await passkeyAccount();
    const token = await newLink(account.user.email);
    const fromElsewhere = await passkeyOptions(token, { origin: 'https://evil.example' });
    expect(fromElsewhere.answer.statusCode).toBe(403);
    expect((await passkeyOptions('A'.repeat(43))).answer.statusCode).toBe(410);

    const plain = await newUser(t.app);
    const plainToken = await newLink(plain.user.email);
    const none = await passkeyOptions(plainToken);
    expect(none.answer.statusCode).toBe(409);
    expect(none.body.error).toBe('A passkey is not needed for this step.');
    // A passkey post without the browser's answer shows the code step again with a text.
    const empty = await postForm('verify', { csrf: token, action: 'passkey', passkeyResponse: '' });
    expectPage(empty, 400);
    expect(alertOf(empty)).toBe('Your passkey did not answer. Try again, or enter a code.');
  });
});

describe('the provider pages answer as pages', () => {
  it("the sign-in form's per-address limit is a 429 page with the wait in words", async () => {
    const signIn = await openSignIn();
    const address = '10.77.0.1';
    const post = () =>
      t.app.inject({
        method: 'POST',
        url: formAction(signIn.page.body),
        remoteAddress: address,
        headers: { ...FORM, cookie: signIn.jar.header() },
        payload: new URLSearchParams({
          ...hiddenFields(signIn.page.body),
          email: '',
          password: '',
        }).toString(),
      });
    for (let i = 0; i < FORM_POSTS_PER_MINUTE; i += 1) expect((await post()).statusCode).toBe(400);
    const refused = await post();
    expectPage(refused, 429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(alertOf(refused)).toMatch(
      /^Too many sign-in attempts from your network\. Try again in (\d+ seconds?|1 minute)\.$/,
    );
  });

  it('an unexpected error of the reset pages is a 500 page, not JSON', async () => {
    const spy = vi.spyOn(t.app.passwordResets!, 'open').mockRejectedValueOnce(new Error('boom'));
    try {
      const answer = await openLink('x'.repeat(43));
      expectPage(answer, 500);
      expect(alertOf(answer)).toBe('Something went wrong on our side. Try again in a moment.');
      expect(answer.body).not.toContain('boom');
    } finally {
      spy.mockRestore();
    }
  });

  it('a form the sign-in or reset pages cannot read is a 400 page, not JSON', async () => {
    const signIn = await openSignIn();
    const repeated = await t.app.inject({
      method: 'POST',
      url: formAction(signIn.page.body),
      headers: { ...FORM, cookie: signIn.jar.header() },
      payload: 'email=a&email=b&password=x',
    });
    expectPage(repeated, 400);
    const reset = await t.app.inject({
      method: 'POST',
      url: `${RESET}/new-password`,
      headers: FORM,
      payload: 'csrf=a&csrf=b',
    });
    expectPage(reset, 400);
  });
});
