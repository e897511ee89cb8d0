/**
 * Issue 9, "Notify the account holder": the password change, each 2-step change and each throttle lockout of a
 * signed-in call mails the account's address (read here in the development mailbox), with when and from which
 * browser. A refused change mails nothing; a lockout mails once per lockout period, not per refused attempt.
 */
import { apiPaths } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { PASSWORD_CHANGE_LIMIT, WRONG_CODE_LIMIT } from '../src/throttles/limits.js';
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

const CHROME_ON_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

const t = clockedAppInStep();

/** The notices (not the codes) mailed to this address, oldest first, once every queued one was delivered. */
async function noticesTo(email: string): Promise<{ subject: string; text: string }[]> {
  await (t.app.notifier as unknown as { drain(): Promise<void> }).drain();
  const messages = t.app.mailer as unknown as {
    list(limit?: number): Promise<{ to: string; subject: string; text: string }[]>;
  };
  return (await messages.list(1000))
    .filter((message) => message.to === email && !/verification code is \d{6}/.test(message.text))
    .reverse();
}

/** Like `call`, from a given browser. */
function callFrom(
  userAgent: string,
  method: 'PUT' | 'POST' | 'DELETE',
  url: string,
  token: string,
  body: unknown,
) {
  return t.app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      'user-agent': userAgent,
    },
    payload: JSON.stringify(body),
  });
}

describe('notices of changes', () => {
  it('a password change: what, when and from which browser, and what to do if it was not the holder', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const changed = await callFrom(
      CHROME_ON_LINUX,
      'PUT',
      apiPaths.passwordChange(account.user.id),
      session.token,
      {
        OldPassword: account.password,
        NewPassword: 'Brand-New-Secret-9',
      },
    );
    expect(changed.statusCode).toBe(200);
    const [notice, ...more] = await noticesTo(account.user.email);
    expect(more).toEqual([]);
    expect(notice?.subject).toBe('Your F5 account password was changed');
    expect(notice?.text).toContain('Browser: Chrome on Linux');
    expect(notice?.text).toMatch(/When: .+ UTC/);
    expect(notice?.text).toContain("If this wasn't you");
    expect(notice?.text).not.toContain('Brand-New-Secret-9');
    expect(notice?.text).not.toContain(account.password);
  });

  it('a refused change mails nothing', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const refused = await call(t.app, 'PUT', apiPaths.passwordChange(account.user.id), {
      token: session.token,
      body: { OldPassword: 'Not-The-Password-1', NewPassword: 'Brand-New-Secret-9' },
    });
    expect(refused.status).toBe(400);
    expect(await noticesTo(account.user.email)).toEqual([]);
  });

  it('each 2-step change: set up, turned off, turned on again, removed', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const sub = account.user.id;
    await enrolAuthenticator(t, session);
    const sent = await call(t.app, 'POST', apiPaths.multifactor('email', sub, 'enroll'), {
      token: session.token,
      body: {},
    });
    expect(sent.status).toBe(200);
    const code = await lastCodeFor(t.app, account.user.email);
    const steps = [
      ['POST', apiPaths.multifactor('email', sub, 'activate'), { code }],
      ['DELETE', apiPaths.multifactor('email', sub, 'opt-out'), {}],
      ['PUT', apiPaths.multifactor('email', sub, 'opt-in'), {}],
      ['DELETE', apiPaths.multifactor('googleauth', sub, 'reset'), { optOut: true }],
    ] as const;
    for (const [method, url, body] of steps) {
      expect((await callFrom(CHROME_ON_LINUX, method, url, session.token, body)).statusCode, url).toBe(200);
      // Each change ended every grant, the caller's too (issue 18): the page renews with its cookie.
      session.token = (await renewSilently(t.app, session.jar)).access_token;
    }
    expect((await noticesTo(account.user.email)).map((notice) => notice.subject)).toEqual([
      'Google Authenticator is now on for your F5 account',
      'Email verification is now on for your F5 account',
      'Email verification was turned off for your F5 account',
      'Email verification was turned on again for your F5 account',
      'Google Authenticator was removed from your F5 account',
    ]);
  });
});

describe('notices of lockouts', () => {
  it('wrong current passwords: one notice when the limit is reached, none when the sliding window locks again', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const attempt = (i: number) =>
      call(t.app, 'PUT', apiPaths.passwordChange(account.user.id), {
        token: session.token,
        body: { OldPassword: `Wrong-Guess-${i}`, NewPassword: 'Brand-New-Secret-9' },
      });
    for (let i = 0; i < PASSWORD_CHANGE_LIMIT.max; i += 1) {
      if (i === PASSWORD_CHANGE_LIMIT.max - 1) expect(await noticesTo(account.user.email)).toEqual([]);
      expect((await attempt(i)).status).toBe(400);
      t.clock.advance(60_000);
    }
    expect((await attempt(99)).status).toBe(429);
    // The oldest failure leaves the 15-minute window: one more attempt is checked, and its failure locks again.
    t.clock.advance(15 * 60_000 - PASSWORD_CHANGE_LIMIT.max * 60_000 + 1000);
    expect((await attempt(100)).status).toBe(400);
    expect((await attempt(101)).status).toBe(429);
    const subjects = (await noticesTo(account.user.email)).map((notice) => notice.subject);
    expect(subjects).toEqual(['Password changes on your F5 account are paused after wrong passwords']);
  });

  it('wrong codes: one notice per lockout period', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const secret = await enrolAuthenticator(t, session);
    const wrong = totp(secret, t.clock.now + 10 * 60_000);
    const verify = () =>
      call(t.app, 'POST', apiPaths.stepUpVerify(account.user.id, 'google-auth'), {
        token: session.token,
        body: { passCode: wrong },
      });
    for (let i = 0; i < WRONG_CODE_LIMIT.max; i += 1) {
      expect((await verify()).status).toBe(400);
      t.clock.advance(30_000);
    }
    expect((await verify()).status).toBe(429);
    // The oldest wrong code leaves the 5-minute window; the next wrong one locks again without a second notice.
    t.clock.advance(5 * 60_000 - WRONG_CODE_LIMIT.max * 30_000 + 1000);
    expect((await verify()).status).toBe(400);
    expect((await verify()).status).toBe(429);
    const locked = (await noticesTo(account.user.email)).filter((notice) =>
      notice.subject.includes('paused'),
    );
    expect(locked.map((notice) => notice.subject)).toEqual([
      'Verification codes for your F5 account are paused after wrong codes',
    ]);
    expect(locked[0]?.text).toMatch(/Codes are refused until .+ UTC/);
  });
});
