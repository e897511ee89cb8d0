/**
 * Recovery codes through the API, against each identity backend (issue 20). Embedded: available, generated once a
 * method is on, offered by the step-up challenge, a code gives the grant. Okta: not available (the org's sign-in
 * would not take the portal's codes): the state says so, generating and using answer 409
 * recovery_codes_unavailable, the challenge offers none, and nothing is stored. The rest (hashes, throttles,
 * notices, the sign-in page) is the embedded backend's own: test/recovery-codes.test.ts.
 */
import { API_ERROR_CODES, apiCalls, pathOf, STEP_UP_TTL_MS } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { useContractBackend, type ContractAccount, type ContractBackend } from './backend.js';
import { challengeOf, setUpAuthenticator } from './support-factors.js';

const backend = useContractBackend();

const status = (b: ContractBackend, account: ContractAccount) =>
  b.call('GET', pathOf(apiCalls.recoveryCodesStatus.path, { sub: account.sub }), account.token);
const generate = (b: ContractBackend, account: ContractAccount) =>
  b.call('POST', pathOf(apiCalls.recoveryCodesGenerate.path, { sub: account.sub }), account.token, {});
const verify = (b: ContractBackend, account: ContractAccount, recoveryCode: string) =>
  b.call('POST', pathOf(apiCalls.stepUpVerifyRecoveryCode.path, { sub: account.sub }), account.token, {
    recoveryCode,
  });

const UNAVAILABLE = {
  error: "Recovery codes are not available here: your organization's sign-in would not accept them.",
  code: API_ERROR_CODES.recoveryCodesUnavailable,
};

describe('recovery codes', () => {
  it('need a 2-step method on, and its step-up, before a set is made', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const none = await generate(b, ada);
    // Okta: not available at all, whatever the account has.
    expect(none.body).toEqual(
      b.kind === 'embedded'
        ? {
            error: 'Turn on a 2-step verification method before generating recovery codes.',
            code: API_ERROR_CODES.noActiveFactor,
          }
        : UNAVAILABLE,
    );
    expect(none.status).toBe(409);
    await setUpAuthenticator(b, ada);
    b.clock.advance(STEP_UP_TTL_MS + 1000);
    const unverified = await generate(b, ada);
    expect(unverified.status).toBe(403);
    expect(unverified.body.code).toBe(API_ERROR_CODES.stepUpRequired);
  });

  it('embedded: made, offered by the challenge, and a code steps up; Okta: 409 and nothing offered', async () => {
    const b = backend();
    const ada = await b.newAccount();
    await setUpAuthenticator(b, ada);
    const made = await generate(b, ada);
    if (b.kind === 'okta') {
      expect(made).toMatchObject({ status: 409, body: UNAVAILABLE });
      expect((await status(b, ada)).body).toEqual({ available: false, left: 0, total: 0, generatedAt: null });
      expect(await verify(b, ada, 'ABCDE-FGHJK')).toMatchObject({ status: 409, body: UNAVAILABLE });
      expect(await challengeOf(b, ada)).not.toHaveProperty('recoveryCodes');
      expect(
        await b.app.storage.sql.all('SELECT * FROM factor_throttle_events WHERE user_id = ?', [ada.sub]),
      ).toEqual([]);
      return;
    }
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const { codes, generatedAt } = made.body as { codes: string[]; generatedAt: string };
    expect((await status(b, ada)).body).toEqual({ available: true, left: 10, total: 10, generatedAt });
    b.clock.advance(STEP_UP_TTL_MS + 1000);
    expect(await challengeOf(b, ada)).toMatchObject({ challengeUser: true, recoveryCodes: { left: 10 } });
    expect((await verify(b, ada, codes[4]!)).status).toBe(200);
    expect(await challengeOf(b, ada)).toMatchObject({ challengeUser: false, recoveryCodes: { left: 9 } });
    const again = await verify(b, ada, codes[4]!);
    expect(again).toMatchObject({ status: 400, body: { code: API_ERROR_CODES.invalidCode } });
  });
});
