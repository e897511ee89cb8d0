import { describe, expect, it } from 'vitest';
import { INVALID_CODE_ERROR, maskEmail } from 'shared-auth/contract';
import { SAM } from './helpers.js';
import {
  call,
  enrolAuthenticator,
  enrolEmail,
  lastCodeFor,
  newUser,
  signInSession,
  startClockedApp,
  totp,
  type Session,
  clockedAppInStep,
} from './security-helpers.js';

const t = clockedAppInStep();

async function freshSession(options: { federated?: boolean } = {}): Promise<Session> {
  return signInSession(t.app, await newUser(t.app, options));
}

const ga = (sub: string, action: string) => `/api/multifactor/googleauth/${sub}/${action}`;
const em = (sub: string, action: string) => `/api/multifactor/email/${sub}/${action}`;

describe('step-up challenge', () => {
  it('asks for no challenge while the user has no active factor', async () => {
    const s = await freshSession();
    const { status, data } = await call(t.app, 'GET', `/api/stepup/${s.user.id}/challenge`, {
      token: s.token,
    });
    expect(status).toBe(200);
    expect(data).toEqual({ challengeUser: false, activeFactorsData: {} });
  });

  it('lists the active factors in the spec shape, with the masked email', async () => {
    const s = await freshSession();
    await enrolAuthenticator(t, s);
    await enrolEmail(t, s);
    const { data } = await call(t.app, 'GET', `/api/stepup/${s.user.id}/challenge`, { token: s.token });
    expect(data.activeFactorsData).toEqual({
      googleAuth: {},
      email: { maskedEmail: maskEmail(s.user.email) },
    });
    expect(maskEmail(s.user.email)).toMatch(/^u\.\.\.\.\d@example\.org$/);
  });

  it('answers 401 without a token, 403 for another user and 403 for a federated user', async () => {
    const s = await freshSession();
    const other = await freshSession();
    const none = await t.app.inject(`/api/stepup/${s.user.id}/challenge`);
    expect(none.statusCode).toBe(401);
    const cross = await call(t.app, 'GET', `/api/stepup/${other.user.id}/challenge`, { token: s.token });
    expect(cross.status).toBe(403);
    expect(cross.data.error).toBe('You can only access your own account');
    const crossMfa = await call(t.app, 'POST', ga(other.user.id, 'enroll'), { token: s.token, body: {} });
    expect(crossMfa.status).toBe(403);

    const sam = await signInSession(t.app, {
      user: (await t.app.directory.findByEmail(SAM.email))!,
      password: SAM.password,
    });
    for (const [method, url] of [
      ['GET', `/api/stepup/${sam.user.id}/challenge`],
      ['POST', `/api/stepup/${sam.user.id}/email/challenge`],
      ['GET', ga(sam.user.id, 'details')],
      ['POST', ga(sam.user.id, 'enroll')],
      ['PUT', em(sam.user.id, 'opt-in')],
    ] as const) {
      const answer = await call(t.app, method, url, {
        token: sam.token,
        ...(method === 'GET' ? {} : { body: {} }),
      });
      expect(answer.status, url).toBe(403);
      expect(answer.data.error).toBe('Security settings are not available for federated users');
    }
  });
});

describe('authenticator app (TOTP)', () => {
  it('enrols with a server-made secret, stored encrypted, and activates with a correct code only', async () => {
    const s = await freshSession();
    const enrolled = await call(t.app, 'POST', ga(s.user.id, 'enroll'), { token: s.token, body: {} });
    expect(enrolled.status).toBe(200);
    const secret = enrolled.data.secret as string;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(enrolled.data.qrLink as string);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
    expect(decodeURIComponent(uri.pathname)).toContain(s.user.email);
    expect(enrolled.response.headers['cache-control']).toBe('no-store');

    const row = (await t.app.storage.sql.get<{ secret_enc: string; status: string }>(
      "SELECT secret_enc, status FROM user_factors WHERE user_id = ? AND type = 'google-auth'",
      [s.user.id],
    ))!;
    expect(row.status).toBe('PENDING_ACTIVATION');
    expect(row.secret_enc).toMatch(/^v1\./);
    expect(row.secret_enc).not.toContain(secret);

    expect((await call(t.app, 'GET', ga(s.user.id, 'details'), { token: s.token })).data).toEqual({
      enrolled: false,
      enrolledDate: null,
    });
    const wrong = await call(t.app, 'POST', ga(s.user.id, 'activate'), {
      token: s.token,
      body: { code: '000000' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.data.error).toBe(INVALID_CODE_ERROR);

    const right = await call(t.app, 'POST', ga(s.user.id, 'activate'), {
      token: s.token,
      body: { code: totp(secret, t.clock.now) },
    });
    expect(right.status).toBe(200);
    expect(right.data.status).toBe('ACTIVE');
    const details = await call(t.app, 'GET', ga(s.user.id, 'details'), { token: s.token });
    expect(details.data.enrolled).toBe(true);
    expect(new Date(details.data.enrolledDate as string).getTime()).toBe(t.clock.now);
  });

  it('accepts the previous and next step, refuses two steps away, and never the same code twice', async () => {
    const s = await freshSession();
    const secret = await enrolAuthenticator(t, s);
    // Two steps after the activation's step, so the previous step is not the one already used.
    t.clock.advance(30_000);
    const verify = (passCode: string) =>
      call(t.app, 'POST', `/api/stepup/${s.user.id}/google-auth/verify`, {
        token: s.token,
        body: { passCode },
      });

    expect((await verify(totp(secret, t.clock.now - 60_000))).status).toBe(400);
    expect((await verify(totp(secret, t.clock.now + 60_000))).status).toBe(400);
    const previous = totp(secret, t.clock.now - 30_000);
    const ok = await verify(previous);
    expect(ok.status).toBe(200);
    expect(ok.data.status).toBe('VERIFIED');
    // Replay: the same code again, within its window.
    const replay = await verify(previous);
    expect(replay.status).toBe(400);
    expect(replay.data.error).toBe(INVALID_CODE_ERROR);
    expect((await verify(totp(secret, t.clock.now + 30_000))).status).toBe(200);
    // The current step is older than the last accepted one (next): refused as well.
    expect((await verify(totp(secret, t.clock.now))).status).toBe(400);
  });

  it('refuses to enrol again while set up, until removed', async () => {
    const s = await freshSession();
    await enrolAuthenticator(t, s);
    const again = await call(t.app, 'POST', ga(s.user.id, 'enroll'), { token: s.token, body: {} });
    expect(again.status).toBe(409);
  });
});

describe('step-up grants', () => {
  it('protects every multifactor call once a factor is active, until this session verifies', async () => {
    const first = await freshSession();
    const secret = await enrolAuthenticator(t, first);
    // Activation proved possession: the enrolling session may go on.
    expect((await call(t.app, 'GET', ga(first.user.id, 'details'), { token: first.token })).status).toBe(200);

    // Another browser (another sign-in session) of the same user must verify on its own.
    const second = await signInSession(t.app, { user: first.user, password: first.password }, () => ({
      code: totp(secret, t.clock.now),
    }));
    expect(second.sid).not.toBe(first.sid);
    t.clock.advance(30_000);
    const sub = first.user.id;
    const challenge = await call(t.app, 'GET', `/api/stepup/${sub}/challenge`, { token: second.token });
    expect(challenge.data.challengeUser).toBe(true);
    // Every factor call, of each factor.
    for (const [method, url, body] of [ga, em].flatMap(
      (path) =>
        [
          ['GET', path(sub, 'details'), undefined],
          ['POST', path(sub, 'enroll'), {}],
          ['POST', path(sub, 'activate'), { code: '123456' }],
          ['PUT', path(sub, 'opt-in'), {}],
          ['DELETE', path(sub, 'opt-out'), undefined],
          ['DELETE', path(sub, 'reset'), { optOut: true }],
        ] as const,
    )) {
      const answer = await call(t.app, method, url, { token: second.token, body });
      expect(answer.status, `${method} ${url}`).toBe(403);
      expect(answer.data.error).toMatch(/^Step-up verification required: verify/);
    }

    const verified = await call(t.app, 'POST', `/api/stepup/${sub}/google-auth/verify`, {
      token: second.token,
      body: { passCode: ` ${totp(secret, t.clock.now)} ` },
    });
    expect(verified.status).toBe(200);
    expect(new Date(verified.data.expiresAt as string).getTime()).toBe(t.clock.now + 300_000);
    expect(
      (await call(t.app, 'GET', `/api/stepup/${sub}/challenge`, { token: second.token })).data.challengeUser,
    ).toBe(false);
    expect((await call(t.app, 'GET', ga(sub, 'details'), { token: second.token })).status).toBe(200);
  });

  it('lasts 5 minutes, keeps across token renewal, and then asks again', async () => {
    const s = await freshSession();
    await enrolAuthenticator(t, s);
    const sub = s.user.id;
    // activate granted at (now - 30 s); 4 min 29 s later it still holds.
    t.clock.advance(269_000);
    expect((await call(t.app, 'GET', ga(sub, 'details'), { token: s.token })).status).toBe(200);
    t.clock.advance(1_000);
    expect((await call(t.app, 'GET', ga(sub, 'details'), { token: s.token })).status).toBe(403);
    expect(
      (await call(t.app, 'GET', `/api/stepup/${sub}/challenge`, { token: s.token })).data.challengeUser,
    ).toBe(true);
  });

  it('is kept by a renewed access token of the same sign-in session (same sid)', async () => {
    const { refresh } = await import('./helpers.js');
    const s = (await signInSession(t.app, await newUser(t.app))) as Session & {
      tokens: { refresh_token?: string };
    };
    await enrolAuthenticator(t, s);
    const renewed = await refresh(t.app, s.tokens.refresh_token!);
    expect((await call(t.app, 'GET', ga(s.user.id, 'details'), { token: renewed.access_token })).status).toBe(
      200,
    );
  });
});

describe('email codes', () => {
  it('enrols: the code goes to the account email, is hashed at rest, and activates once', async () => {
    const s = await freshSession();
    const sent = await call(t.app, 'POST', em(s.user.id, 'enroll'), { token: s.token, body: {} });
    expect(sent.status).toBe(200);
    expect(sent.data).toEqual({ status: 'PENDING_ACTIVATION' });
    const code = await lastCodeFor(t.app, s.user.email);
    expect(code).toMatch(/^\d{6}$/);
    const stored = (await t.app.storage.sql.get<{ code_hash: string }>(
      'SELECT code_hash FROM email_codes WHERE user_id = ?',
      [s.user.id],
    ))!;
    expect(stored.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.code_hash).not.toContain(code);

    expect((await call(t.app, 'GET', em(s.user.id, 'details'), { token: s.token })).data.enrolled).toBe(
      false,
    );
    const wrongCode = code === '000000' ? '111111' : '000000';
    const wrong = await call(t.app, 'POST', em(s.user.id, 'activate'), {
      token: s.token,
      body: { code: wrongCode },
    });
    expect(wrong.data.error).toBe(INVALID_CODE_ERROR);
    const ok = await call(t.app, 'POST', em(s.user.id, 'activate'), { token: s.token, body: { code } });
    expect(ok.status).toBe(200);
    expect(ok.data.status).toBe('ACTIVE');
    const details = await call(t.app, 'GET', em(s.user.id, 'details'), { token: s.token });
    expect(details.data.enrolled).toBe(true);
  });

  it('step-up by email: single use, valid 10 minutes, and a new send replaces the previous code', async () => {
    const s = await freshSession();
    await enrolEmail(t, s);
    const sub = s.user.id;
    const send = () => call(t.app, 'POST', `/api/stepup/${sub}/email/challenge`, { token: s.token });
    const verify = (passCode: string) =>
      call(t.app, 'POST', `/api/stepup/${sub}/email/verify`, { token: s.token, body: { passCode } });

    const sent = await send();
    expect(sent.status).toBe(200);
    expect(sent.data).toEqual({ status: 'SENT', maskedEmail: maskEmail(s.user.email) });
    const first = await lastCodeFor(t.app, s.user.email);
    expect((await verify(first)).status).toBe(200);
    expect((await verify(first)).status).toBe(400); // single use

    t.clock.advance(30_000);
    await send();
    const expiring = await lastCodeFor(t.app, s.user.email);
    t.clock.advance(10 * 60_000);
    expect((await verify(expiring)).status).toBe(400); // expired

    await send();
    const older = await lastCodeFor(t.app, s.user.email);
    t.clock.advance(30_000);
    await send();
    const newer = await lastCodeFor(t.app, s.user.email);
    if (older !== newer) expect((await verify(older)).status).toBe(400); // replaced
    expect((await verify(`  ${newer} `)).status).toBe(200);
  });

  it('sends at most one code every 30 seconds (429 with Retry-After)', async () => {
    const s = await freshSession();
    await enrolEmail(t, s);
    const send = () => call(t.app, 'POST', `/api/stepup/${s.user.id}/email/challenge`, { token: s.token });
    expect((await send()).status).toBe(200);
    t.clock.advance(20_000);
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(refused.response.headers['retry-after']).toBe('10');
    expect(refused.data.error).toMatch(/Wait 10 seconds/);
    // The enrolment resend shares the limit.
    t.clock.advance(10_000);
    expect((await send()).status).toBe(200);
  });

  it('answers 409 when the email factor is not active', async () => {
    const s = await freshSession();
    const refused = await call(t.app, 'POST', `/api/stepup/${s.user.id}/email/challenge`, { token: s.token });
    expect(refused.status).toBe(409);
  });
});

describe('wrong-code throttle', () => {
  it('allows 5 wrong codes in 5 minutes, then answers 429 even to a right code, then recovers', async () => {
    const s = await freshSession();
    const secret = await enrolAuthenticator(t, s);
    const verify = (passCode: string) =>
      call(t.app, 'POST', `/api/stepup/${s.user.id}/google-auth/verify`, {
        token: s.token,
        body: { passCode },
      });
    for (let i = 0; i < 5; i += 1) {
      expect((await verify('000000')).status).toBe(400);
      t.clock.advance(10_000);
    }
    const refused = await verify(totp(secret, t.clock.now));
    expect(refused.status).toBe(429);
    expect(refused.data.error).toMatch(
      /^Too many wrong codes\. For your security, try again in \d+ minutes?\.$/,
    );
    // The first failure was 50 s ago: it leaves the window at 5 minutes.
    expect(Number(refused.response.headers['retry-after'])).toBe(250);
    // activate of another factor shares the count
    const email = await call(t.app, 'POST', em(s.user.id, 'enroll'), { token: s.token, body: {} });
    expect(email.status).toBe(200);
    const code = await lastCodeFor(t.app, s.user.email);
    expect(
      (await call(t.app, 'POST', em(s.user.id, 'activate'), { token: s.token, body: { code } })).status,
    ).toBe(429);

    t.clock.advance(250_000);
    expect((await verify(totp(secret, t.clock.now))).status).toBe(200);
  });

  it('persists in storage: a restart does not reset it, and the restarted server opens the sealed secret', async () => {
    const local = await startClockedApp();
    const account = await newUser(local.app);
    const s = await signInSession(local.app, account);
    const secret = await enrolAuthenticator(local, s);
    const verify = (app: typeof local.app, passCode: string) =>
      call(app, 'POST', `/api/stepup/${s.user.id}/google-auth/verify`, {
        token: s.token,
        body: { passCode },
      });
    for (let i = 0; i < 5; i += 1) expect((await verify(local.app, '000000')).status).toBe(400);
    await local.app.close();
    const restarted = await startClockedApp({}, local.dataDir);
    try {
      restarted.clock.now = local.clock.now;
      expect((await verify(restarted.app, totp(secret, restarted.clock.now))).status).toBe(429);
      // Once the wrong codes left the window, a right code opens: the same key reads the secret sealed before.
      restarted.clock.advance(5 * 60_000);
      expect((await verify(restarted.app, totp(secret, restarted.clock.now))).status).toBe(200);
    } finally {
      await restarted.close();
    }
  });
});

describe('turning factors off and on, removal', () => {
  it('keeps at least 2 active factors for opt-out and reset (409), and allows them with 2', async () => {
    const s = await freshSession();
    await enrolAuthenticator(t, s);
    const sub = s.user.id;
    const only = await call(t.app, 'DELETE', ga(sub, 'opt-out'), { token: s.token });
    expect(only.status).toBe(409);
    expect(only.data.error).toMatch(/at least 2 active factors are required/);
    expect(
      (await call(t.app, 'DELETE', ga(sub, 'reset'), { token: s.token, body: { optOut: true } })).status,
    ).toBe(409);
    await enrolEmail(t, s);

    const off = await call(t.app, 'DELETE', ga(sub, 'opt-out'), { token: s.token });
    expect(off.status).toBe(200);
    expect(off.data.status).toBe('INACTIVE');
    // Turned off, still enrolled; the other is now the last one.
    expect((await call(t.app, 'GET', ga(sub, 'details'), { token: s.token })).data.enrolled).toBe(true);
    expect((await call(t.app, 'DELETE', em(sub, 'opt-out'), { token: s.token })).status).toBe(409);
    const on = await call(t.app, 'PUT', ga(sub, 'opt-in'), { token: s.token, body: {} });
    expect(on.data.status).toBe('ACTIVE');

    const removed = await call(t.app, 'DELETE', em(sub, 'reset'), { token: s.token, body: { optOut: true } });
    expect(removed.status).toBe(200);
    expect(removed.data.status).toBe('NOT_ENROLLED');
    expect((await call(t.app, 'GET', em(sub, 'details'), { token: s.token })).data).toEqual({
      enrolled: false,
      enrolledDate: null,
    });
    const challenge = await call(t.app, 'GET', `/api/stepup/${sub}/challenge`, { token: s.token });
    expect(challenge.data.activeFactorsData).toEqual({ googleAuth: {} });
  });

  it('refuses opt-in of a factor that is not set up, and validates the reset body', async () => {
    const s = await freshSession();
    expect((await call(t.app, 'PUT', ga(s.user.id, 'opt-in'), { token: s.token, body: {} })).status).toBe(
      409,
    );
    const bad = await call(t.app, 'DELETE', ga(s.user.id, 'reset'), {
      token: s.token,
      body: { optOut: false },
    });
    expect(bad.status).toBe(400);
    expect(bad.data.error).toMatch(/optOut/);
  });
});
