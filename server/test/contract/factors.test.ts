/**
 * The 2-step factors through the API, the same tests against each identity backend (embedded and Okta): listing,
 * enrolling the authenticator app with the source's shared secret and email with the source's code, turning them
 * off and on as each backend maps it, the last-factor rule, removal, and the fresh proof a first factor needs. What
 * the identity source holds is read back beside every answer (factorsAtSource). A federated user's refusals are the
 * authorization matrix's column (./authorization-matrix.test.ts); what only one backend has (the sealed secret and
 * hashed codes at rest, Okta's requests) stays in security.test.ts and okta-backend.test.ts.
 */
import {
  API_ERROR_CODES,
  apiPaths,
  INVALID_CODE_ERROR,
  maskEmail,
  REAUTHENTICATION_REQUIRED_ERROR,
  STEP_UP_TTL_MS,
} from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { useContractBackend } from './backend.js';
import {
  challengeOf,
  multifactor,
  otherCode,
  setUpAuthenticator,
  setUpEmail,
  sourceFactors,
} from './support-factors.js';

const backend = useContractBackend();

const ISO_DATE = /^\d{4}-\d{2}-\d{2}T/;

/**
 * What turning a factor off does on this backend, as every details answer tells the page (server/README.md
 * "Embedded mode and Okta mode"): embedded keeps it set up, turned off; Okta has no per-factor off, so it removes.
 */
const turnOff = () => (backend().kind === 'embedded' ? 'keeps' : 'removes');
const notEnrolled = () => ({ enrolled: false, enrolledDate: null, turnOff: turnOff() });
const enrolled = () => ({
  enrolled: true,
  enrolledDate: expect.stringMatching(ISO_DATE),
  turnOff: turnOff(),
});

describe('the factors list', () => {
  it('none at first; once set up, only the active factors, in the spec shape with the masked email', async () => {
    const b = backend();
    const ada = await b.newAccount();
    expect((await multifactor(b, 'googleauth', 'details', ada)).body).toEqual(notEnrolled());
    expect((await multifactor(b, 'email', 'details', ada)).body).toEqual(notEnrolled());
    expect(await b.factorsAtSource(ada)).toEqual([]);

    await setUpAuthenticator(b, ada);
    await setUpEmail(b, ada);
    expect(await challengeOf(b, ada)).toEqual({
      // Activation proved possession: this session holds a step-up grant.
      challengeUser: false,
      activeFactorsData: { googleAuth: {}, email: { maskedEmail: maskEmail(ada.email) } },
    });
    for (const factor of ['googleauth', 'email'] as const) {
      expect((await multifactor(b, factor, 'details', ada)).body, factor).toEqual(enrolled());
    }
    expect(await sourceFactors(b, ada)).toEqual(['email ACTIVE', 'googleAuth ACTIVE']);
  });
});

describe('the authenticator app', () => {
  it("enrols with the source's shared secret; a wrong code is refused, a code from the secret activates", async () => {
    const b = backend();
    const ada = await b.newAccount();
    const enrolment = await multifactor(b, 'googleauth', 'enroll', ada);
    expect(enrolment.status).toBe(200);
    expect(enrolment.headers['cache-control']).toBe('no-store');
    const { secret, qrLink } = enrolment.body as { secret: string; qrLink: string };
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    const uri = new URL(qrLink);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
    expect(decodeURIComponent(uri.pathname)).toContain(ada.email);
    expect(await sourceFactors(b, ada)).toEqual(['googleAuth PENDING_ACTIVATION']);
    expect((await multifactor(b, 'googleauth', 'details', ada)).body).toEqual(notEnrolled());

    // A code of the secret, but ten steps away: wrong.
    const wrong = await multifactor(b, 'googleauth', 'activate', ada, ada.token, {
      code: b.totp(secret, 10),
    });
    expect(wrong).toMatchObject({
      status: 400,
      body: { error: INVALID_CODE_ERROR, code: API_ERROR_CODES.invalidCode },
    });
    expect(await sourceFactors(b, ada)).toEqual(['googleAuth PENDING_ACTIVATION']);

    const activated = await multifactor(b, 'googleauth', 'activate', ada, ada.token, {
      code: b.totp(secret),
    });
    expect(activated).toMatchObject({
      status: 200,
      body: { status: 'ACTIVE', enrolledDate: expect.stringMatching(ISO_DATE) },
    });
    expect(await sourceFactors(b, ada)).toEqual(['googleAuth ACTIVE']);
    expect((await multifactor(b, 'googleauth', 'details', ada)).body).toEqual(enrolled());

    // Set up: enrolling again is refused until it is removed.
    const again = await multifactor(b, 'googleauth', 'enroll', ada);
    expect(again).toMatchObject({ status: 409, body: { code: API_ERROR_CODES.factorState } });
    expect(await sourceFactors(b, ada)).toEqual(['googleAuth ACTIVE']);
  });
});

describe('email', () => {
  it("enrols pending (PENDING_ACTIVATION); a wrong code is refused, the source's code activates", async () => {
    const b = backend();
    const ada = await b.newAccount();
    const enrolment = await multifactor(b, 'email', 'enroll', ada);
    expect(enrolment).toMatchObject({ status: 200, body: { status: 'PENDING_ACTIVATION' } });
    expect(await sourceFactors(b, ada)).toEqual(['email PENDING_ACTIVATION']);
    expect((await multifactor(b, 'email', 'details', ada)).body).toEqual(notEnrolled());

    const code = await b.lastEmailCode(ada);
    expect(code).toMatch(/^\d{6}$/);
    const wrong = await multifactor(b, 'email', 'activate', ada, ada.token, { code: otherCode(code) });
    expect(wrong).toMatchObject({
      status: 400,
      body: { error: INVALID_CODE_ERROR, code: API_ERROR_CODES.invalidCode },
    });
    const activated = await multifactor(b, 'email', 'activate', ada, ada.token, { code });
    expect(activated).toMatchObject({ status: 200, body: { status: 'ACTIVE' } });
    expect(await sourceFactors(b, ada)).toEqual(['email ACTIVE']);
    expect((await multifactor(b, 'email', 'details', ada)).body).toEqual(enrolled());
  });
});

describe('turning factors off and on', () => {
  it('off as each backend maps it (embedded: turned off and kept; okta: removed, as Okta has no off), then on again where there is something to turn on', async () => {
    const b = backend();
    const ada = await b.newAccount();
    await setUpAuthenticator(b, ada);
    await setUpEmail(b, ada);

    const off = await multifactor(b, 'googleauth', 'opt-out', ada);
    if (b.kind === 'embedded') {
      // Turned off, still set up: the page's "is not removed and can be turned back on".
      expect(off).toMatchObject({
        status: 200,
        body: { status: 'INACTIVE', enrolledDate: expect.stringMatching(ISO_DATE) },
      });
      expect(await sourceFactors(b, ada)).toEqual(['email ACTIVE', 'googleAuth INACTIVE']);
      expect((await multifactor(b, 'googleauth', 'details', ada)).body).toEqual(enrolled());
    } else {
      // Okta's Management API has no per-factor off: the enrolment is deleted (server/README.md).
      expect(off).toMatchObject({ status: 200, body: { status: 'NOT_ENROLLED', enrolledDate: null } });
      expect(await sourceFactors(b, ada)).toEqual(['email ACTIVE']);
      expect((await multifactor(b, 'googleauth', 'details', ada)).body).toEqual(notEnrolled());
    }
    // Either way it is no longer asked for, and email is now the only active factor.
    expect((await challengeOf(b, ada)).activeFactorsData).toEqual({
      email: { maskedEmail: maskEmail(ada.email) },
    });
    const lastOff = await multifactor(b, 'email', 'opt-out', ada);
    expect(lastOff).toMatchObject({ status: 409, body: { code: API_ERROR_CODES.lastFactor } });

    const on = await multifactor(b, 'googleauth', 'opt-in', ada);
    if (b.kind === 'embedded') {
      expect(on).toMatchObject({ status: 200, body: { status: 'ACTIVE' } });
      expect(await sourceFactors(b, ada)).toEqual(['email ACTIVE', 'googleAuth ACTIVE']);
    } else {
      // Nothing is left to turn on: it has to be set up again.
      expect(on).toMatchObject({
        status: 409,
        body: {
          error: 'Set up Google Authenticator before turning it on',
          code: API_ERROR_CODES.factorState,
        },
      });
      expect(await sourceFactors(b, ada)).toEqual(['email ACTIVE']);
    }
  });

  it('turning on a factor that is not set up is refused (409), on both backends', async () => {
    const b = backend();
    const ada = await b.newAccount();
    for (const factor of ['googleauth', 'email'] as const) {
      const on = await multifactor(b, factor, 'opt-in', ada);
      expect(on, factor).toMatchObject({ status: 409, body: { code: API_ERROR_CODES.factorState } });
    }
    expect(await b.factorsAtSource(ada)).toEqual([]);
  });
});

describe('the last-factor rule and removal', () => {
  it('the only active factor can be neither turned off nor removed (409), and stays at the source', async () => {
    const b = backend();
    const ada = await b.newAccount();
    await setUpAuthenticator(b, ada);
    for (const action of ['opt-out', 'reset'] as const) {
      const refused = await multifactor(b, 'googleauth', action, ada);
      expect(refused, action).toMatchObject({
        status: 409,
        body: {
          error: expect.stringMatching(/at least 2 active factors are required/),
          code: API_ERROR_CODES.lastFactor,
        },
      });
    }
    expect(await sourceFactors(b, ada)).toEqual(['googleAuth ACTIVE']);
  });

  it('removal deletes the enrolment at the source, of an active factor or of one still pending', async () => {
    const b = backend();
    const ada = await b.newAccount();
    await setUpAuthenticator(b, ada);
    await setUpEmail(b, ada);

    const removed = await multifactor(b, 'email', 'reset', ada);
    expect(removed).toMatchObject({ status: 200, body: { status: 'NOT_ENROLLED', enrolledDate: null } });
    expect(await sourceFactors(b, ada)).toEqual(['googleAuth ACTIVE']);
    expect((await multifactor(b, 'email', 'details', ada)).body).toEqual(notEnrolled());
    expect((await challengeOf(b, ada)).activeFactorsData).toEqual({ googleAuth: {} });

    // A set-up that never finished is removed whatever else is set up.
    expect((await multifactor(b, 'email', 'enroll', ada)).status).toBe(200);
    expect(await sourceFactors(b, ada)).toEqual(['email PENDING_ACTIVATION', 'googleAuth ACTIVE']);
    const pending = await multifactor(b, 'email', 'reset', ada);
    expect(pending).toMatchObject({ status: 200, body: { status: 'NOT_ENROLLED' } });
    expect(await sourceFactors(b, ada)).toEqual(['googleAuth ACTIVE']);
  });

  it('the reset body must say optOut: true (400), and nothing is removed', async () => {
    const b = backend();
    const ada = await b.newAccount();
    await setUpAuthenticator(b, ada);
    const bad = await multifactor(b, 'googleauth', 'reset', ada, ada.token, { optOut: false });
    expect(bad).toMatchObject({
      status: 400,
      body: { error: expect.stringMatching(/optOut/), code: API_ERROR_CODES.invalidRequest },
    });
    expect(await sourceFactors(b, ada)).toEqual(['googleAuth ACTIVE']);
  });
});

describe('the first factor needs fresh proof ("Confirm it\'s you")', () => {
  it('a sign-in older than 5 minutes cannot turn on a first factor; embedded: the password again; okta: 409 no_local_password, a fresh sign-in', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const stale = await b.signIn(ada, { authTimeAgoMs: STEP_UP_TTL_MS + 60_000 });
    for (const factor of ['googleauth', 'email'] as const) {
      const refused = await multifactor(b, factor, 'enroll', ada, stale);
      // The answer tells the page how to prove it: the password (embedded), or only a new sign-in (Okta).
      expect(refused, factor).toMatchObject({
        status: 403,
        body:
          b.kind === 'embedded'
            ? {
                error: `${REAUTHENTICATION_REQUIRED_ERROR}: enter your password to turn on 2-step verification.`,
                code: API_ERROR_CODES.reauthenticationRequired,
                proof: 'password',
              }
            : {
                error: `${REAUTHENTICATION_REQUIRED_ERROR}: sign in again to turn on 2-step verification.`,
                code: API_ERROR_CODES.reauthenticationRequired,
                proof: 'sign-in',
              },
      });
    }
    expect(await b.factorsAtSource(ada)).toEqual([]);

    const confirm = await b.call('POST', apiPaths.reauthenticate(ada.sub), stale, { password: ada.password });
    let proven = stale;
    if (b.kind === 'embedded') {
      expect(confirm).toMatchObject({
        status: 200,
        body: { status: 'VERIFIED', expiresAt: new Date(b.clock.now() + STEP_UP_TTL_MS).toISOString() },
      });
    } else {
      // The Management API cannot check a password without changing it: signing in again is the proof.
      expect(confirm).toMatchObject({ status: 409, body: { code: API_ERROR_CODES.noLocalPassword } });
      expect((await multifactor(b, 'googleauth', 'enroll', ada, stale)).status).toBe(403);
      proven = await b.signIn(ada);
    }
    expect((await multifactor(b, 'googleauth', 'enroll', ada, proven)).status).toBe(200);
    expect(await sourceFactors(b, ada)).toEqual(['googleAuth PENDING_ACTIVATION']);
  });
});
