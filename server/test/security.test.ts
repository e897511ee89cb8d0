/**
 * What only the embedded backend does with 2-step factors: its own TOTP secret sealed at rest, the ±1 step window
 * on its clock, the email codes it mails and keeps as hashes for 10 minutes, a grant kept across the provider's
 * token renewal, and its throttle across a restart. What both backends do (listing, enrolment, step-up, on/off,
 * removal, throttles, the refusals) is the contract suite's: test/contract/{factors,step-up,throttles,
 * authorization-matrix}.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { INVALID_CODE_ERROR } from 'shared-auth/contract';
import type { CookieJar } from './helpers.js';
import {
  call,
  enrolAuthenticator,
  enrolEmail,
  lastCodeFor,
  newUser,
  renewSilently,
  signInSession,
  startClockedApp,
  totp,
  type Session,
  clockedAppInStep,
} from './security-helpers.js';

const t = clockedAppInStep();

async function freshSession(): Promise<Session & { jar: CookieJar }> {
  return signInSession(t.app, await newUser(t.app));
}

const ga = (sub: string, action: string) => `/api/multifactor/googleauth/${sub}/${action}`;
const em = (sub: string, action: string) => `/api/multifactor/email/${sub}/${action}`;

describe('authenticator app (TOTP), embedded', () => {
  it('makes a 160-bit secret itself, stores it sealed (v1.), and dates the enrolment at the activation', async () => {
    const s = await freshSession();
    const enrolled = await call(t.app, 'POST', ga(s.user.id, 'enroll'), { token: s.token, body: {} });
    expect(enrolled.status).toBe(200);
    const secret = enrolled.data.secret as string;
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    const row = (await t.app.storage.sql.get<{ secret_enc: string; status: string }>(
      "SELECT secret_enc, status FROM user_factors WHERE user_id = ? AND type = 'google-auth'",
      [s.user.id],
    ))!;
    expect(row.status).toBe('PENDING_ACTIVATION');
    expect(row.secret_enc).toMatch(/^v1\./);
    expect(row.secret_enc).not.toContain(secret);

    const right = await call(t.app, 'POST', ga(s.user.id, 'activate'), {
      token: s.token,
      body: { code: totp(secret, t.clock.now) },
    });
    expect(right.status).toBe(200);
    // The activation ended every grant, the caller's too (issue 18): the page renews with its cookie.
    const { access_token: renewed } = await renewSilently(t.app, s.jar);
    const details = await call(t.app, 'GET', ga(s.user.id, 'details'), { token: renewed });
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
});

describe('step-up grants, embedded', () => {
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

describe('email codes, embedded', () => {
  it('the code goes to the mailbox of the account email and is kept only as a hash', async () => {
    const s = await freshSession();
    const sent = await call(t.app, 'POST', em(s.user.id, 'enroll'), { token: s.token, body: {} });
    expect(sent.status).toBe(200);
    const code = await lastCodeFor(t.app, s.user.email);
    const stored = (await t.app.storage.sql.get<{ code_hash: string }>(
      'SELECT code_hash FROM email_codes WHERE user_id = ?',
      [s.user.id],
    ))!;
    expect(stored.code_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored.code_hash).not.toContain(code);
  });

  it('a step-up code is valid 10 minutes', async () => {
    const s = await freshSession();
    await enrolEmail(t, s);
    const sub = s.user.id;
    const send = () => call(t.app, 'POST', `/api/stepup/${sub}/email/challenge`, { token: s.token });
    const verify = (passCode: string) =>
      call(t.app, 'POST', `/api/stepup/${sub}/email/verify`, { token: s.token, body: { passCode } });
    await send();
    const expiring = await lastCodeFor(t.app, s.user.email);
    t.clock.advance(10 * 60_000);
    const expired = await verify(expiring);
    expect(expired.status).toBe(400);
    expect(expired.data.error).toBe(INVALID_CODE_ERROR);
    t.clock.advance(30_000);
    await send();
    expect((await verify(await lastCodeFor(t.app, s.user.email))).status).toBe(200);
  });
});

describe('wrong-code throttle, embedded', () => {
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
