/**
 * The preferred 2-step method (issue 22), the same tests against each identity backend and on both databases:
 * "Use by default" (PUT /api/v1/users/:sub/multifactor/preferred) on an active method only, the challenge naming it
 * while it is active, and turning it off or removing it forgetting it (the fixed order again). The call's columns of
 * the authorization matrix (another account, no step-up, federated, no token) are ./authorization-matrix.test.ts.
 */
import { API_ERROR_CODES, apiCalls, pathOf, STEP_UP_TTL_MS } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { PREFERRED_METHOD_NOT_ACTIVE } from '../../src/factors/preferred-method.js';
import { useContractBackend, type ContractAccount, type ContractBackend } from './backend.js';
import {
  challengeOf,
  multifactor,
  sendEmailChallenge,
  setUpAuthenticator,
  setUpEmail,
  verifyStepUp,
} from './support-factors.js';

const backend = useContractBackend();

const choose = (b: ContractBackend, account: ContractAccount, body: unknown, token = account.token) =>
  b.call('PUT', pathOf(apiCalls.preferredMethod.path, { sub: account.sub }), token, body);

/** What the portal's table holds for the account (both engines store it the same way). */
const storedOf = async (b: ContractBackend, account: ContractAccount) =>
  (
    await b.app.storage.sql.get<{ method: string }>(
      'SELECT method FROM account_preferred_methods WHERE account_id = ?',
      [account.sub],
    )
  )?.method;

/** An account with the authenticator app and email, its session holding a step-up grant. */
async function withBothFactors(b: ContractBackend): Promise<ContractAccount> {
  const ada = await b.newAccount();
  await setUpAuthenticator(b, ada);
  await setUpEmail(b, ada);
  return ada;
}

describe('choosing the default method', () => {
  it('stores an active method, and the challenge names it; a later choice replaces it', async () => {
    const b = backend();
    const ada = await withBothFactors(b);
    expect(await challengeOf(b, ada)).not.toHaveProperty('preferredMethod');

    const chosen = await choose(b, ada, { method: 'email' });
    expect(chosen).toMatchObject({ status: 200, body: { preferredMethod: 'email' } });
    expect(chosen.headers['cache-control']).toBe('no-store');
    expect(await storedOf(b, ada)).toBe('email');
    expect(await challengeOf(b, ada)).toMatchObject({ preferredMethod: 'email' });

    expect((await choose(b, ada, { method: 'googleAuth' })).status).toBe(200);
    expect(await challengeOf(b, ada)).toMatchObject({ preferredMethod: 'googleAuth' });
  });

  it('refuses a method that is not active (409 factor_state), and changes nothing', async () => {
    const b = backend();
    const ada = await b.newAccount();
    await setUpAuthenticator(b, ada);
    for (const method of ['email', 'passkey'] as const) {
      const refused = await choose(b, ada, { method });
      expect(refused, method).toMatchObject({
        status: 409,
        body: { error: PREFERRED_METHOD_NOT_ACTIVE, code: API_ERROR_CODES.factorState },
      });
    }
    // No method at all: the same refusal (there is no step-up to ask for).
    const bob = await b.newAccount();
    expect(await choose(b, bob, { method: 'googleAuth' })).toMatchObject({
      status: 409,
      body: { code: API_ERROR_CODES.factorState },
    });
    expect(await storedOf(b, ada)).toBeUndefined();
    expect(await storedOf(b, bob)).toBeUndefined();
  });

  it('refuses a body that names no method of the contract (400), never a 500', async () => {
    const b = backend();
    const ada = await withBothFactors(b);
    for (const body of [{ method: 'sms' }, { method: 'email', extra: 1 }, {}, ['email'], { method: null }]) {
      const refused = await choose(b, ada, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error, JSON.stringify(body)).toEqual(expect.any(String));
    }
    expect(await storedOf(b, ada)).toBeUndefined();
  });

  it('needs this session’s step-up: another sign-in, or a grant run out, gets 403 step_up_required', async () => {
    const b = backend();
    const ada = await withBothFactors(b);
    const other = await b.signIn(ada);
    expect(await choose(b, ada, { method: 'email' }, other)).toMatchObject({
      status: 403,
      body: { code: API_ERROR_CODES.stepUpRequired },
    });
    b.clock.advance(STEP_UP_TTL_MS + 60_000);
    expect(await choose(b, ada, { method: 'email' })).toMatchObject({
      status: 403,
      body: { code: API_ERROR_CODES.stepUpRequired },
    });
    expect(await storedOf(b, ada)).toBeUndefined();
    // Verified again, the same session may choose.
    b.clock.advance(30_000);
    expect((await sendEmailChallenge(b, ada, other)).status).toBe(200);
    expect((await verifyStepUp(b, ada, 'email', await b.lastEmailCode(ada), other)).status).toBe(200);
    expect((await choose(b, ada, { method: 'email' }, other)).status).toBe(200);
  });

  it('a burst of parallel choices: each answered, one of them stored, and the challenge agrees', async () => {
    const b = backend();
    const ada = await withBothFactors(b);
    // The page's reload after the change (embedded: its token renews first), then the burst.
    await challengeOf(b, ada);
    const methods = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 'email' : 'googleAuth'));
    const answers = await Promise.all(methods.map((method) => choose(b, ada, { method })));
    expect(answers.map((answer) => answer.status)).toEqual(methods.map(() => 200));
    const stored = await storedOf(b, ada);
    expect(['email', 'googleAuth']).toContain(stored);
    expect(await challengeOf(b, ada)).toMatchObject({ preferredMethod: stored });
  });
});

describe('turning the default off or removing it', () => {
  it('turning it off forgets it: the challenge goes back to the fixed order, and turning it on again does not restore it', async () => {
    const b = backend();
    const ada = await withBothFactors(b);
    expect((await choose(b, ada, { method: 'email' })).status).toBe(200);
    expect((await multifactor(b, 'email', 'opt-out', ada)).status).toBe(200);
    expect(await storedOf(b, ada)).toBeUndefined();
    const challenge = await challengeOf(b, ada);
    expect(challenge).not.toHaveProperty('preferredMethod');
    expect(challenge.activeFactorsData).toEqual({ googleAuth: {} });
  });

  it('removing it forgets it; removing another method keeps it', async () => {
    const b = backend();
    const ada = await withBothFactors(b);
    expect((await choose(b, ada, { method: 'googleAuth' })).status).toBe(200);
    expect((await multifactor(b, 'email', 'reset', ada)).status).toBe(200);
    expect(await storedOf(b, ada)).toBe('googleAuth');
    expect(await challengeOf(b, ada)).toMatchObject({ preferredMethod: 'googleAuth' });

    await setUpEmail(b, ada);
    expect((await multifactor(b, 'googleauth', 'reset', ada)).status).toBe(200);
    expect(await storedOf(b, ada)).toBeUndefined();
    expect(await challengeOf(b, ada)).not.toHaveProperty('preferredMethod');
  });

  it('a choice stored for a method that went another way (not through the API) is never offered', async () => {
    const b = backend();
    const ada = await withBothFactors(b);
    // As if a removal outside these calls had left the row: the challenge weighs it against the active methods.
    await b.app.storage.preferredMethods.set(ada.sub, 'passkey', b.clock.now());
    expect(await challengeOf(b, ada)).not.toHaveProperty('preferredMethod');
  });
});
