/**
 * Step-up through the API, the same tests against each identity backend: once the account has an active factor,
 * the security calls need this sign-in session's grant; a code of the authenticator app (each code once) or an
 * email code the source sent gives it for STEP_UP_TTL_MS; another sign-in has its own. Every call's refusal without
 * a grant is the authorization matrix's column (./authorization-matrix.test.ts); the TOTP window and the renewed
 * token's grant are the embedded provider's (security.test.ts).
 */
import {
  API_ERROR_CODES,
  INVALID_CODE_ERROR,
  maskEmail,
  STEP_UP_REQUIRED_ERROR,
  STEP_UP_TTL_MS,
} from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { useContractBackend, type ContractAccount, type ContractBackend } from './backend.js';
import {
  challengeOf,
  multifactor,
  otherCode,
  sendEmailChallenge,
  setUpAuthenticator,
  setUpEmail,
  sourceFactors,
  verifyStepUp,
} from './support-factors.js';

const backend = useContractBackend();

/** The refusal of a security call without a grant. */
async function expectStepUpRequired(b: ContractBackend, account: ContractAccount, token: string) {
  const details = await multifactor(b, 'googleauth', 'details', account, token);
  expect(details.status).toBe(403);
  expect(details.body.code).toBe(API_ERROR_CODES.stepUpRequired);
  expect(details.body.error).toMatch(new RegExp(`^${STEP_UP_REQUIRED_ERROR}: verify`));
}

describe('without an active factor', () => {
  it('no challenge, and nothing to verify with (409)', async () => {
    const b = backend();
    const ada = await b.newAccount();
    expect(await challengeOf(b, ada)).toEqual({ challengeUser: false, activeFactorsData: {} });
    expect((await multifactor(b, 'googleauth', 'details', ada)).status).toBe(200);
    const send = await sendEmailChallenge(b, ada);
    expect(send).toMatchObject({ status: 409, body: { code: API_ERROR_CODES.factorState } });
    for (const factor of ['google-auth', 'email'] as const) {
      const verify = await verifyStepUp(b, ada, factor, '123456');
      expect(verify, factor).toMatchObject({ status: 409, body: { code: API_ERROR_CODES.factorState } });
    }
  });
});

describe('with the authenticator app', () => {
  it('another sign-in must verify on its own: a code works once, and the grant lasts STEP_UP_TTL_MS', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const secret = await setUpAuthenticator(b, ada);
    // Activation proved possession: the enrolling session may go on.
    expect(await challengeOf(b, ada)).toMatchObject({ challengeUser: false });

    // Another sign-in of the same account has no grant of its own. (A step later on the portal's clock: an
    // embedded sign-in's own code is then behind the codes below.)
    const other = await b.signIn(ada);
    b.clock.advance(30_000);
    expect(await challengeOf(b, ada, other)).toEqual({
      challengeUser: true,
      activeFactorsData: { googleAuth: {} },
    });
    await expectStepUpRequired(b, ada, other);

    const wrong = await verifyStepUp(b, ada, 'google-auth', b.totp(secret, 10), other);
    expect(wrong).toMatchObject({
      status: 400,
      body: { error: INVALID_CODE_ERROR, code: API_ERROR_CODES.invalidCode },
    });
    // The next step's code (activation used this one), with the spaces a user may type.
    const code = b.totp(secret, 1);
    const verified = await verifyStepUp(b, ada, 'google-auth', ` ${code} `, other);
    expect(verified).toMatchObject({ status: 200, body: { status: 'VERIFIED' } });
    expect(new Date(verified.body.expiresAt as string).getTime()).toBe(b.clock.now() + STEP_UP_TTL_MS);
    expect(await challengeOf(b, ada, other)).toMatchObject({ challengeUser: false });
    expect((await multifactor(b, 'googleauth', 'details', ada, other)).status).toBe(200);

    // The same code again: refused, on both backends (Okta: E0000082).
    const replayed = await verifyStepUp(b, ada, 'google-auth', code, other);
    expect(replayed).toMatchObject({
      status: 400,
      body: { error: INVALID_CODE_ERROR, code: API_ERROR_CODES.invalidCode },
    });

    // The grant ends STEP_UP_TTL_MS after the verification, then the session is asked again.
    b.clock.advance(STEP_UP_TTL_MS - 1_000);
    expect((await multifactor(b, 'googleauth', 'details', ada, other)).status).toBe(200);
    b.clock.advance(1_000);
    await expectStepUpRequired(b, ada, other);
    expect(await challengeOf(b, ada, other)).toMatchObject({ challengeUser: true });
    expect(await sourceFactors(b, ada)).toEqual(['googleAuth ACTIVE']);
  });
});

describe('with email', () => {
  it('the source sends a code to the account; it verifies once; a new send replaces the previous code', async () => {
    const b = backend();
    const ada = await b.newAccount();
    await setUpEmail(b, ada);
    const other = await b.signIn(ada);
    // Whatever the sign-in sent, the next send is past the 30 s limit.
    b.clock.advance(30_000);
    expect(await challengeOf(b, ada, other)).toEqual({
      challengeUser: true,
      activeFactorsData: { email: { maskedEmail: maskEmail(ada.email) } },
    });

    const sent = await sendEmailChallenge(b, ada, other);
    expect(sent).toMatchObject({ status: 200, body: { status: 'SENT', maskedEmail: maskEmail(ada.email) } });
    const code = await b.lastEmailCode(ada);
    expect(code).toMatch(/^\d{6}$/);
    const wrong = await verifyStepUp(b, ada, 'email', otherCode(code), other);
    expect(wrong).toMatchObject({
      status: 400,
      body: { error: INVALID_CODE_ERROR, code: API_ERROR_CODES.invalidCode },
    });
    const verified = await verifyStepUp(b, ada, 'email', code, other);
    expect(verified).toMatchObject({ status: 200, body: { status: 'VERIFIED' } });
    expect(new Date(verified.body.expiresAt as string).getTime()).toBe(b.clock.now() + STEP_UP_TTL_MS);
    expect(await challengeOf(b, ada, other)).toMatchObject({ challengeUser: false });
    // Single use.
    expect((await verifyStepUp(b, ada, 'email', code, other)).status).toBe(400);

    // A new send replaces the previous code.
    b.clock.advance(30_000);
    expect((await sendEmailChallenge(b, ada, other)).status).toBe(200);
    const older = await b.lastEmailCode(ada);
    b.clock.advance(30_000);
    expect((await sendEmailChallenge(b, ada, other)).status).toBe(200);
    const newer = await b.lastEmailCode(ada);
    if (older !== newer) expect((await verifyStepUp(b, ada, 'email', older, other)).status).toBe(400);
    expect((await verifyStepUp(b, ada, 'email', `  ${newer} `, other)).status).toBe(200);
    expect(await sourceFactors(b, ada)).toEqual(['email ACTIVE']);
  });
});
