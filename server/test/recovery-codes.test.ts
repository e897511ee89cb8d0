/**
 * Recovery codes through the API and the embedded sign-in (issue 20): the state, a new set (step-up protected, only
 * with a 2-step method on, shown once, kept as keyed hashes), a step-up with a code (each code once, any spelling,
 * wrong ones throttled with the factors' codes), the notices, their removal with the last method, and the sign-in's
 * "Use a recovery code". Okta mode's refusal is the contract suite's (test/contract/recovery-codes.test.ts).
 */
import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import {
  API_ERROR_CODES,
  apiCalls,
  INVALID_CODE_ERROR,
  pathOf,
  RECOVERY_CODE_PATTERN,
  STEP_UP_TTL_MS,
} from 'shared-auth/contract';
import { describe, expect, it, vi } from 'vitest';
import { SqlFactorStore } from '../src/storage/factors.js';
import { SqlRecoveryCodeStore } from '../src/storage/recovery-codes.js';
import { STORAGE_UNAVAILABLE_MESSAGE } from '../src/http/storage-unavailable.js';
import {
  call,
  clockedAppInStep,
  enrolAuthenticator,
  enrolEmail,
  newUser,
  renewSilently,
  signInSession,
  totp,
  type ClockedApp,
  type Session,
} from './security-helpers.js';

const t = clockedAppInStep();

const statusPath = (sub: string) => pathOf(apiCalls.recoveryCodesStatus.path, { sub });
const generatePath = (sub: string) => pathOf(apiCalls.recoveryCodesGenerate.path, { sub });
const verifyPath = (sub: string) => pathOf(apiCalls.stepUpVerifyRecoveryCode.path, { sub });
const challengePath = (sub: string) => pathOf(apiCalls.stepUpChallenge.path, { sub });

const status = (s: Session) => call(t.app, 'GET', statusPath(s.user.id), { token: s.token });
const generate = (s: Session) => call(t.app, 'POST', generatePath(s.user.id), { token: s.token, body: {} });
const verify = (s: Session, recoveryCode: string) =>
  call(t.app, 'POST', verifyPath(s.user.id), { token: s.token, body: { recoveryCode } });
const challenge = (s: Session) => call(t.app, 'GET', challengePath(s.user.id), { token: s.token });

type Signed = Awaited<ReturnType<typeof signInSession>> & { secret: string };

/** A signed-in user with the authenticator app on (the session holds the activation's step-up grant). */
async function withAuthenticator(app: ClockedApp = t): Promise<Signed> {
  const session = await signInSession(app.app, await newUser(app.app));
  const secret = await enrolAuthenticator(app, session);
  return Object.assign(session, { secret });
}

/** After a 2-step change ended its grant chain, the page renews with its session cookie (and keeps its step-up). */
async function renew(session: Signed): Promise<void> {
  session.token = (await renewSilently(t.app, session.jar)).access_token;
}

/** A set generated through the API (the session must hold a grant). */
async function codesOf(session: Session): Promise<string[]> {
  const answer = await generate(session);
  expect(answer.status, JSON.stringify(answer.data)).toBe(200);
  return answer.data.codes as string[];
}

/** The session's step-up grant runs out. */
const expireGrant = () => t.clock.advance(STEP_UP_TTL_MS + 1000);

async function mailTo(email: string): Promise<{ subject: string; text: string }[]> {
  await t.app.notifier.drain();
  const messages = (await t.app.inject('/dev/mailbox/messages')).json<
    { to: string; subject: string; text: string }[]
  >();
  return messages.filter((message) => message.to === email);
}

const busy = () => Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });

describe('state and generation', () => {
  it('answers the state: none yet, then a set of 10, with when it was made', async () => {
    const ada = await withAuthenticator();
    expect((await status(ada)).data).toEqual({ available: true, left: 0, total: 0, generatedAt: null });
    const answer = await generate(ada);
    expect(answer.status).toBe(200);
    expect(answer.response.headers['cache-control']).toBe('no-store');
    const { codes, generatedAt } = answer.data as { codes: string[]; generatedAt: string };
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(RECOVERY_CODE_PATTERN);
    expect(generatedAt).toBe(new Date(t.clock.now).toISOString());
    expect((await status(ada)).data).toEqual({ available: true, left: 10, total: 10, generatedAt });
  });

  it('refuses a user without an active 2-step method: 409 no_active_factor', async () => {
    const bob = await signInSession(t.app, await newUser(t.app));
    const answer = await generate(bob);
    expect(answer.status).toBe(409);
    expect(answer.data).toEqual({
      error: 'Turn on a 2-step verification method before generating recovery codes.',
      code: API_ERROR_CODES.noActiveFactor,
    });
    expect((await status(bob)).data).toMatchObject({ left: 0, total: 0 });
  });

  it('needs this session’s step-up grant: 403 step_up_required, and nothing is made', async () => {
    const ada = await withAuthenticator();
    expireGrant();
    const answer = await generate(ada);
    expect(answer.status).toBe(403);
    expect(answer.data.code).toBe(API_ERROR_CODES.stepUpRequired);
    expect((await status(ada)).data).toMatchObject({ left: 0, total: 0 });
  });

  it('stores keyed hashes only: no code is in the database, the notice or any mail', async () => {
    const ada = await withAuthenticator();
    const codes = await codesOf(ada);
    const rows = await t.app.storage.sql.all<Record<string, unknown>>(
      'SELECT * FROM recovery_codes WHERE user_id = ?',
      [ada.user.id],
    );
    expect(rows).toHaveLength(10);
    const stored = JSON.stringify(rows);
    for (const row of rows) expect(row.code_hash).toMatch(/^[0-9a-f]{64}$/);
    const mail = JSON.stringify(await mailTo(ada.user.email));
    const notices = JSON.stringify(
      await t.app.storage.sql.all('SELECT * FROM notifications WHERE user_id = ?', [ada.user.id]),
    );
    for (const code of codes) {
      for (const spelling of [code, code.replace('-', '')]) {
        expect(stored).not.toContain(spelling);
        expect(mail).not.toContain(spelling);
        expect(notices).not.toContain(spelling);
      }
    }
  });

  it('a new set voids the old one, and the holder is told each time', async () => {
    const ada = await withAuthenticator();
    const old = await codesOf(ada);
    const fresh = await codesOf(ada);
    expect(fresh.some((code) => old.includes(code))).toBe(false);
    expireGrant();
    expect((await verify(ada, old[0]!)).status).toBe(400);
    expect((await verify(ada, fresh[0]!)).status).toBe(200);
    const generated = (await mailTo(ada.user.email)).filter(
      (m) => m.subject === 'New recovery codes were generated for your F5 account',
    );
    expect(generated).toHaveLength(2);
    expect(generated[0]?.text).toContain(
      'A new set of 10 recovery codes was generated for 2-step verification of your F5 account on the Security page. Recovery codes generated before no longer work.',
    );
  });

  it('answers 503 (not 500) when the storage cannot take it', async () => {
    const ada = await withAuthenticator();
    const read = vi.spyOn(SqlRecoveryCodeStore.prototype, 'set').mockRejectedValueOnce(busy());
    const state = await status(ada);
    expect(state.status).toBe(503);
    expect(state.response.headers['retry-after']).toBeDefined();
    expect(state.data.error).toBe(STORAGE_UNAVAILABLE_MESSAGE);
    read.mockRestore();
    vi.spyOn(SqlRecoveryCodeStore.prototype, 'replace').mockRejectedValueOnce(busy());
    const made = await generate(ada);
    expect(made.status).toBe(503);
    expect((await status(ada)).data).toMatchObject({ total: 0 });
    vi.spyOn(SqlRecoveryCodeStore.prototype, 'use').mockRejectedValueOnce(busy());
    const codes = await codesOf(ada);
    expect((await verify(ada, codes[0]!)).status).toBe(503);
  });
});

describe('step-up with a recovery code', () => {
  it('the challenge offers them (never as a factor); a code gives the grant once, however it is typed', async () => {
    const ada = await withAuthenticator();
    const codes = await codesOf(ada);
    expireGrant();
    const before = await challenge(ada);
    expect(before.data).toEqual({
      challengeUser: true,
      activeFactorsData: { googleAuth: {} },
      recoveryCodes: { left: 10 },
    });
    // Lower case, no dash, spaces around: still the code.
    const typed = `  ${codes[0]!.replace('-', '').toLowerCase()} `;
    const answer = await verify(ada, typed);
    expect(answer.status, JSON.stringify(answer.data)).toBe(200);
    expect(answer.data).toEqual({
      status: 'VERIFIED',
      expiresAt: new Date(t.clock.now + STEP_UP_TTL_MS).toISOString(),
    });
    expect((await challenge(ada)).data).toMatchObject({ challengeUser: false, recoveryCodes: { left: 9 } });
    // The grant opens the security calls.
    expect((await call(t.app, 'GET', `/api/multifactor/googleauth/${ada.user.id}/details`, ada)).status).toBe(
      200,
    );
    // Used: refused, as a wrong code.
    const again = await verify(ada, codes[0]!);
    expect(again.status).toBe(400);
    expect(again.data).toEqual({ error: INVALID_CODE_ERROR, code: API_ERROR_CODES.invalidCode });
    // With the dash and spaces inside, in mixed case: still a code.
    const spaced = codes[1]!.toLowerCase().replace('-', ' - ');
    expect((await verify(ada, spaced)).status).toBe(200);
    expect((await status(ada)).data).toMatchObject({ left: 8, total: 10 });
  });

  it('tells the holder of each use, warning at 3 or fewer left', async () => {
    const ada = await withAuthenticator();
    const codes = await codesOf(ada);
    for (const code of codes.slice(0, 7)) expect((await verify(ada, code)).status).toBe(200);
    const used = (await mailTo(ada.user.email)).filter(
      (m) => m.subject === 'A recovery code was used for your F5 account',
    );
    expect(used).toHaveLength(7);
    // Newest first.
    expect(used[0]?.text).toContain(
      "A recovery code was used instead of a verification code in My Profile, to manage the security settings or the password of your F5 account. It cannot be used again. Recovery codes left: 3. Only 3 recovery codes left. Generate new ones so you don't get locked out.",
    );
    expect(used[1]?.text).toContain('Recovery codes left: 4.');
    expect(used[1]?.text).not.toContain('Generate new ones');
    for (const code of codes.slice(7, 9)) expect((await verify(ada, code)).status).toBe(200);
    const [last] = (await mailTo(ada.user.email)).filter((m) =>
      m.subject.startsWith('A recovery code was used'),
    );
    expect(last?.text).toContain("Only 1 recovery code left. Generate new ones so you don't get locked out.");
  });

  it('counts wrong codes with the factors’ wrong codes: 429 at the limit, even for a right code', async () => {
    const ada = await withAuthenticator();
    const codes = await codesOf(ada);
    expireGrant();
    for (const wrong of ['AAAAA-AAAAA', 'not a code', 'BBBBB-BBBBB', 'CCCCC-CCCCC']) {
      expect((await verify(ada, wrong)).status).toBe(400);
    }
    // The fifth wrong one is an authenticator code: the same count.
    const wrongTotp = await call(t.app, 'POST', `/api/stepup/${ada.user.id}/google-auth/verify`, {
      token: ada.token,
      body: { passCode: totp(ada.secret, t.clock.now) === '000000' ? '111111' : '000000' },
    });
    expect(wrongTotp.status).toBe(400);
    const refused = await verify(ada, codes[0]!);
    expect(refused.status).toBe(429);
    expect(refused.data.code).toBe(API_ERROR_CODES.rateLimited);
    expect(refused.response.headers['retry-after']).toBeDefined();
    expect((await status(ada)).data).toMatchObject({ left: 10 });
    expect((await mailTo(ada.user.email)).map((m) => m.subject)).toContain(
      'Verification codes for your F5 account are paused after wrong codes',
    );
    t.clock.advance(5 * 60_000 + 1000);
    expect((await verify(ada, codes[0]!)).status).toBe(200);
  });

  it('a burst of 20 parallel uses of one code: exactly one succeeds', async () => {
    const ada = await withAuthenticator();
    const [code] = await codesOf(ada);
    const answers = await Promise.all(Array.from({ length: 20 }, () => verify(ada, code!)));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.every((s) => [200, 400, 429].includes(s))).toBe(true);
    expect((await status(ada)).data).toMatchObject({ left: 9 });
  });

  it('a user without codes gets 400 invalid_code, counted; no recoveryCodes in the challenge', async () => {
    const ada = await withAuthenticator();
    expect((await challenge(ada)).data).not.toHaveProperty('recoveryCodes');
    expect((await verify(ada, 'ABCDE-FGHJK')).status).toBe(400);
    const counted = await t.app.storage.throttles.wrongCodes.since(ada.user.id, 0);
    expect(counted).toHaveLength(1);
  });
});

describe('with the 2-step methods', () => {
  it('stay while a method is on, never count as one, and go (with a notice) with the last one', async () => {
    const ada = await withAuthenticator();
    await enrolEmail(t, ada);
    const codes = await codesOf(ada);
    // Turning email off leaves the authenticator: the codes stay.
    const off = await call(t.app, 'DELETE', `/api/multifactor/email/${ada.user.id}/opt-out`, ada);
    expect(off.status, JSON.stringify(off.data)).toBe(200);
    await renew(ada);
    expect((await status(ada)).data).toMatchObject({ left: 10 });
    // The codes do not count for the last-factor rule: the only method stays.
    const last = await call(t.app, 'DELETE', `/api/multifactor/googleauth/${ada.user.id}/opt-out`, ada);
    expect(last.status).toBe(409);
    expect(last.data.code).toBe(API_ERROR_CODES.lastFactor);
    expect((await challenge(ada)).data.activeFactorsData).toEqual({ googleAuth: {} });

    // The API keeps one method on (the last-factor rule); should the last one still go (here: the rule is made to
    // see a second one), the codes go in its transaction.
    const real = SqlFactorStore.prototype.factors;
    vi.spyOn(SqlFactorStore.prototype, 'factors').mockImplementation(async function (
      this: SqlFactorStore,
      userId: string,
    ) {
      const factors = await real.call(this, userId);
      // While the authenticator is on, a second active method shows; once it is gone, the truth.
      const authenticator = factors.find((f) => f.type === 'googleAuth' && f.status === 'ACTIVE');
      if (!authenticator) return factors;
      return [authenticator, { ...authenticator, type: 'email' as const }];
    });
    const removed = await call(t.app, 'DELETE', `/api/multifactor/googleauth/${ada.user.id}/reset`, {
      token: ada.token,
      body: { optOut: true },
    });
    expect(removed.status, JSON.stringify(removed.data)).toBe(200);
    vi.mocked(SqlFactorStore.prototype.factors).mockRestore();
    await renew(ada);
    expect((await status(ada)).data).toEqual({ available: true, left: 0, total: 0, generatedAt: null });
    expect(
      await t.app.storage.sql.all('SELECT * FROM recovery_codes WHERE user_id = ?', [ada.user.id]),
    ).toEqual([]);
    const subjects = (await mailTo(ada.user.email)).map((m) => m.subject);
    expect(subjects).toContain('The recovery codes of your F5 account were removed');
    expect(codes).toHaveLength(10);
  });
});

describe('the sign-in’s 2-step step', () => {
  /** Signs in, answering the 2-step pages in turn; records each page. */
  async function signInWith(
    account: Session,
    answers: Array<(page: LightMyRequestResponse) => Record<string, string>>,
  ) {
    const pages: LightMyRequestResponse[] = [];
    const session = await signInSession(t.app, account, (page) => {
      pages.push(page);
      const answer = answers.shift();
      if (!answer) throw new Error(`no answer left for: ${page.body.slice(0, 400)}`);
      return answer(page);
    });
    return { session, pages };
  }

  it('offers "Use a recovery code" beside the code field; a code signs in, once, with amr recovery-code', async () => {
    const ada = await withAuthenticator();
    const codes = await codesOf(ada);
    // signInSession answers 5 pages at most: the last one is the code page again, whose post names the action.
    const { session, pages } = await signInWith(ada, [
      () => ({ action: 'use-recovery-code' }),
      () => ({ action: 'recovery-code', recoveryCode: 'ZZZZZ-ZZZZZ' }),
      () => ({ action: 'recovery-code', recoveryCode: '' }),
      () => ({ action: 'use-verification-code' }),
      () => ({ action: 'recovery-code', recoveryCode: ` ${codes[2]!.toLowerCase()} ` }),
    ]);
    const [codePage, recoveryPage, wrong, missing, back] = pages;
    expect(codePage?.body).toContain('<label for="code">Verification code</label>');
    expect(codePage?.body).toContain(
      '<button type="submit" name="action" value="use-recovery-code" class="secondary" formnovalidate>Use a recovery code</button>',
    );
    expect(recoveryPage?.statusCode).toBe(200);
    expect(recoveryPage?.body).toContain('<label for="recovery-code">Recovery code</label>');
    expect(recoveryPage?.body).toMatch(/<input id="recovery-code" name="recoveryCode"[^>]* autofocus>/);
    expect(recoveryPage?.body).toContain('Use a verification code instead');
    expect(wrong?.statusCode).toBe(400);
    expect(wrong?.body).toContain(
      '<div id="form-error" role="alert">That recovery code is not correct or was already used. Check it and try again.</div>',
    );
    expect(wrong?.body).toMatch(/<input id="recovery-code"[^>]*autofocus aria-describedby="form-error">/);
    expect(missing?.statusCode).toBe(400);
    expect(missing?.body).toContain('Enter a recovery code.');
    expect(back?.statusCode).toBe(200);
    expect(back?.body).toContain('<label for="code">Verification code</label>');
    expect(back?.body).toContain('Use a recovery code');
    const claims = decodeJwt(session.tokens.id_token);
    expect(claims.amr).toEqual(['pwd', 'recovery-code', 'mfa']);
    expect((await status(ada)).data).toMatchObject({ left: 9 });
    const used = (await mailTo(ada.user.email)).find((m) => m.subject.startsWith('A recovery code was used'));
    expect(used?.text).toContain(
      'A recovery code was used instead of a verification code to sign in to your F5 account. It cannot be used again. Recovery codes left: 9.',
    );
    // Used once: the same code is refused at the next sign-in, and the authenticator still works.
    const second = await signInWith(ada, [
      () => ({ action: 'recovery-code', recoveryCode: codes[2]! }),
      () => ({ action: 'verify', code: totp(ada.secret, t.clock.now) }),
    ]);
    expect(second.pages[1]?.statusCode).toBe(400);
    expect(decodeJwt(second.session.tokens.id_token).amr).toEqual(['pwd', 'otp', 'mfa']);
  });

  it('answers the wrong-code throttle on the recovery code form: 429 with Retry-After, the form kept', async () => {
    const ada = await withAuthenticator();
    const codes = await codesOf(ada);
    for (let i = 0; i < 4; i += 1) expect((await verify(ada, 'AAAAA-AAAAA')).status).toBe(400);
    const pages: LightMyRequestResponse[] = [];
    const answers = [
      { action: 'recovery-code', recoveryCode: 'BBBBB-BBBBB' },
      { action: 'recovery-code', recoveryCode: codes[0]! },
    ];
    await expect(
      signInSession(t.app, ada, (page) => {
        pages.push(page);
        const answer = answers.shift();
        if (!answer) throw new Error('stop');
        return answer;
      }),
    ).rejects.toThrow('stop');
    expect(pages[1]?.statusCode).toBe(400);
    const refused = pages[2];
    expect(refused?.statusCode).toBe(429);
    expect(refused?.headers['retry-after']).toBeDefined();
    expect(refused?.body).toContain('<label for="recovery-code">Recovery code</label>');
    expect(refused?.body).toMatch(/<div id="form-error" role="alert">Too many wrong codes\./);
    expect((await status(ada)).data).toMatchObject({ left: 10 });
  });

  it('has no "Use a recovery code" for an account without codes', async () => {
    const ada = await withAuthenticator();
    t.clock.advance(30_000);
    const { pages } = await signInWith(ada, [
      () => ({ action: 'verify', code: totp(ada.secret, t.clock.now) }),
    ]);
    expect(pages[0]?.body).toContain('Verification code');
    expect(pages[0]?.body).not.toContain('Use a recovery code');
  });
});

describe('useRecoveryCode (the service the password reset calls)', () => {
  it("answers 'used' once and 'wrong' otherwise; counted, unless the caller counts itself", async () => {
    const ada = await withAuthenticator();
    const codes = await codesOf(ada);
    const counted = async () => (await t.app.storage.throttles.wrongCodes.since(ada.user.id, 0)).length;
    expect(await t.app.useRecoveryCode(ada.user.id, codes[0]!)).toBe('used');
    expect(await t.app.useRecoveryCode(ada.user.id, codes[0]!)).toBe('wrong');
    expect(await counted()).toBe(1);
    expect(await t.app.useRecoveryCode(ada.user.id, 'not-a-code', { counted: false })).toBe('wrong');
    expect(await counted()).toBe(1);
    expect(await t.app.useRecoveryCode(ada.user.id, codes[1]!.toLowerCase(), { counted: false })).toBe(
      'used',
    );
    // The caller's count is the caller's to clear.
    expect(await counted()).toBe(1);
    expect(await t.app.useRecoveryCode('00uNoSuchUser000000', codes[2]!)).toBe('wrong');
    expect((await status(ada)).data).toMatchObject({ left: 8 });
    const [notice] = (await mailTo(ada.user.email)).filter((m) =>
      m.subject.startsWith('A recovery code was used'),
    );
    expect(notice?.text).toContain(
      'A recovery code was used instead of a verification code to reset the password of your F5 account.',
    );
  });
});
