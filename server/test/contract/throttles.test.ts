/**
 * The portal's throttles of the security calls, the same tests against each identity backend: the portal counts
 * before the backend checks anything, so the limits, the 429 answers and their Retry-After are the same whoever
 * holds the factors and the password. Moved by hand on the portal's clock, never slept on.
 *
 * | limit                                               | here                                               |
 * | --------------------------------------------------- | -------------------------------------------------- |
 * | wrong codes: step-up verify and activate (shared)   | 5 in 5 minutes, then 429 even for a right code     |
 * | email sends: enrolment and step-up (shared)         | one per 30 seconds                                 |
 * | wrong passwords: "Confirm it's you"                 | embedded: counted with the password change; okta:  |
 * |                                                     | no password is checked (409), nothing is counted   |
 *
 * What only the embedded provider has (its sign-in page's code step and "Send code", failed sign-ins, a restart
 * over the same data) is in security/throttles.test.ts and security.test.ts; that Okta is not asked once the
 * portal refuses is in okta-backend.test.ts; the wrong current passwords of the password change are the password
 * suite's.
 */
import {
  API_ERROR_CODES,
  apiPaths,
  INVALID_CODE_ERROR,
  REAUTHENTICATION_WRONG_PASSWORD_ERROR,
} from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { EMAIL_SEND_LIMIT, PASSWORD_CHANGE_LIMIT, WRONG_CODE_LIMIT } from '../../src/throttles/limits.js';
import { useContractBackend } from './backend.js';
import {
  multifactor,
  sendEmailChallenge,
  setUpAuthenticator,
  sourceFactors,
  verifyStepUp,
} from './support-factors.js';

const backend = useContractBackend();

const TOO_MANY_CODES = /^Too many wrong codes\. For your security, try again in \d+ minutes?\.$/;

describe('wrong codes', () => {
  it('step-up verify: 5 wrong in 5 minutes, then 429 even for a right code, shared with activate, then it verifies', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const secret = await setUpAuthenticator(b, ada);
    for (let attempt = 0; attempt < WRONG_CODE_LIMIT.max; attempt += 1) {
      const wrong = await verifyStepUp(b, ada, 'google-auth', b.totp(secret, 10 + attempt));
      expect(wrong, `attempt ${attempt + 1}`).toMatchObject({
        status: 400,
        body: { error: INVALID_CODE_ERROR, code: API_ERROR_CODES.invalidCode },
      });
      b.clock.advance(10_000);
    }
    const refused = await verifyStepUp(b, ada, 'google-auth', b.totp(secret, 1));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      error: expect.stringMatching(TOO_MANY_CODES),
      code: API_ERROR_CODES.rateLimited,
    });
    // The first wrong code was 50 s ago: it leaves the window at 5 minutes.
    expect(refused.headers['retry-after']).toBe(String((WRONG_CODE_LIMIT.windowMs - 50_000) / 1000));

    // Activating another factor shares the count: the right code of its enrolment is refused too.
    expect((await multifactor(b, 'email', 'enroll', ada)).status).toBe(200);
    const code = await b.lastEmailCode(ada);
    const activation = await multifactor(b, 'email', 'activate', ada, ada.token, { code });
    expect(activation).toMatchObject({ status: 429, body: { code: API_ERROR_CODES.rateLimited } });
    expect(await sourceFactors(b, ada)).toEqual(['email PENDING_ACTIVATION', 'googleAuth ACTIVE']);

    b.clock.advance(WRONG_CODE_LIMIT.windowMs - 50_000);
    const verified = await verifyStepUp(b, ada, 'google-auth', b.totp(secret, 1));
    expect(verified).toMatchObject({ status: 200, body: { status: 'VERIFIED' } });
  });

  it('activate: 5 wrong in 5 minutes, then 429 even for the right code (Retry-After: the window)', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const enrolled = await multifactor(b, 'googleauth', 'enroll', ada);
    const { secret } = enrolled.body as { secret: string };
    for (let attempt = 1; attempt <= WRONG_CODE_LIMIT.max; attempt += 1) {
      const refused = await multifactor(b, 'googleauth', 'activate', ada, ada.token, {
        code: b.totp(secret, 10),
      });
      expect(refused, `attempt ${attempt}`).toMatchObject({
        status: 400,
        body: { error: INVALID_CODE_ERROR, code: API_ERROR_CODES.invalidCode },
      });
    }
    const throttled = await multifactor(b, 'googleauth', 'activate', ada, ada.token, {
      code: b.totp(secret),
    });
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({
      error: 'Too many wrong codes. For your security, try again in 5 minutes.',
      code: API_ERROR_CODES.rateLimited,
    });
    expect(throttled.headers['retry-after']).toBe(String(WRONG_CODE_LIMIT.windowMs / 1000));
    expect(await sourceFactors(b, ada)).toEqual(['googleAuth PENDING_ACTIVATION']);

    // A second before the window ends: still refused.
    b.clock.advance(WRONG_CODE_LIMIT.windowMs - 1_000);
    const still = await multifactor(b, 'googleauth', 'activate', ada, ada.token, { code: b.totp(secret) });
    expect(still.status).toBe(429);
    expect(still.headers['retry-after']).toBe('1');
  });
});

describe('email sends', () => {
  it('one code per 30 seconds, shared by the enrolment (resend) and the step-up challenge, then again', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const enroll = () => multifactor(b, 'email', 'enroll', ada);
    expect((await enroll()).status).toBe(200);
    b.clock.advance(10_000);
    const throttled = await enroll();
    expect(throttled.status).toBe(429);
    expect(throttled.body).toEqual({
      error: 'A code was sent less than 30 seconds ago. Wait 20 seconds before asking for another.',
      code: API_ERROR_CODES.rateLimited,
    });
    expect(throttled.headers['retry-after']).toBe('20');
    b.clock.advance(20_000);
    expect((await enroll()).status).toBe(200);
    const activated = await multifactor(b, 'email', 'activate', ada, ada.token, {
      code: await b.lastEmailCode(ada),
    });
    expect(activated.status).toBe(200);

    // The step-up send, 10 s after the enrolment's: refused for 20 s more, then sent.
    b.clock.advance(10_000);
    const refused = await sendEmailChallenge(b, ada);
    expect(refused).toMatchObject({ status: 429, body: { code: API_ERROR_CODES.rateLimited } });
    expect(refused.body.error).toMatch(/Wait 20 seconds/);
    expect(refused.headers['retry-after']).toBe('20');
    b.clock.advance(EMAIL_SEND_LIMIT.windowMs - 10_000);
    expect((await sendEmailChallenge(b, ada)).status).toBe(200);
    b.clock.advance(20_000);
    const again = await sendEmailChallenge(b, ada);
    expect(again.status).toBe(429);
    expect(again.headers['retry-after']).toBe('10');
    expect(await sourceFactors(b, ada)).toEqual(['email ACTIVE']);
  });
});

describe('wrong passwords at "Confirm it\'s you"', () => {
  it('embedded: counted with the password change (5, then 429); okta: no password is checked (409), nothing counted', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const confirm = (password: string) =>
      b.call('POST', apiPaths.reauthenticate(ada.sub), ada.token, { password });
    for (let attempt = 1; attempt <= PASSWORD_CHANGE_LIMIT.max; attempt += 1) {
      const wrong = await confirm(`Wrong-${attempt}-Password`);
      if (b.kind === 'embedded') {
        expect(wrong, `attempt ${attempt}`).toMatchObject({
          status: 400,
          body: { error: REAUTHENTICATION_WRONG_PASSWORD_ERROR, code: API_ERROR_CODES.wrongPassword },
        });
      } else {
        expect(wrong, `attempt ${attempt}`).toMatchObject({
          status: 409,
          body: { code: API_ERROR_CODES.noLocalPassword },
        });
      }
    }
    const right = await confirm(ada.password);
    // The password change shares the count: with the right current password.
    const change = await b.call('PUT', apiPaths.passwordChange(ada.sub), ada.token, {
      OldPassword: ada.password,
      NewPassword: 'Brand-New-Secret-9!',
    });
    if (b.kind === 'embedded') {
      expect(right).toMatchObject({ status: 429, body: { code: API_ERROR_CODES.rateLimited } });
      expect(right.headers['retry-after']).toBe(String(PASSWORD_CHANGE_LIMIT.windowMs / 1000));
      expect(change).toMatchObject({ status: 429, body: { code: API_ERROR_CODES.rateLimited } });
      expect(await b.passwordAccepted(ada, ada.password)).toBe(true);
    } else {
      expect(right).toMatchObject({ status: 409, body: { code: API_ERROR_CODES.noLocalPassword } });
      expect(change.status).toBe(200);
      expect(await b.passwordAccepted(ada, 'Brand-New-Secret-9!')).toBe(true);
    }
  });
});
