/**
 * Factor and step-up helpers of the contract suite, built only on the backend fixture (./backend.ts), so they work
 * the same against the embedded backend and Okta's.
 */
import { apiPaths, type MultifactorPathSegment } from 'shared-auth/contract';
import { expect } from 'vitest';
import type { ContractAccount, ContractBackend } from './backend.js';

export type MultifactorAction = 'enroll' | 'details' | 'activate' | 'opt-in' | 'opt-out' | 'reset';

/** The body each multifactor call takes (enroll and opt-in take none; reset needs `optOut: true`). */
export function multifactorBody(action: MultifactorAction, code = '123456'): unknown {
  if (action === 'activate') return { code };
  if (action === 'reset') return { optOut: true };
  return undefined;
}

/** One multifactor call of a factor for the account's path. */
export function multifactor(
  b: ContractBackend,
  factor: MultifactorPathSegment,
  action: MultifactorAction,
  account: ContractAccount,
  token: string | undefined = account.token,
  body: unknown = multifactorBody(action),
) {
  const method = (
    {
      enroll: 'POST',
      details: 'GET',
      activate: 'POST',
      'opt-in': 'PUT',
      'opt-out': 'DELETE',
      reset: 'DELETE',
    } as const
  )[action];
  return b.call(method, apiPaths.multifactor(factor, account.sub, action), token, body);
}

/** The step-up challenge answer of this token's session. */
export async function challengeOf(b: ContractBackend, account: ContractAccount, token = account.token) {
  const answer = await b.call('GET', apiPaths.stepUpChallenge(account.sub), token);
  expect(answer.status).toBe(200);
  return answer.body as { challengeUser: boolean; activeFactorsData: Record<string, unknown> };
}

export const verifyStepUp = (
  b: ContractBackend,
  account: ContractAccount,
  factor: 'google-auth' | 'email',
  passCode: string,
  token = account.token,
) => b.call('POST', apiPaths.stepUpVerify(account.sub, factor), token, { passCode });

export const sendEmailChallenge = (b: ContractBackend, account: ContractAccount, token = account.token) =>
  b.call('POST', apiPaths.stepUpSendChallenge(account.sub, 'email'), token);

/**
 * Enrols and activates the authenticator app through the API with a code of the current step (so later codes
 * come from the next step: each step is accepted once, on both backends); answers the source's shared secret.
 * Activation grants the session step-up, which the enrolment of a second factor needs.
 */
export async function setUpAuthenticator(
  b: ContractBackend,
  account: ContractAccount,
  token = account.token,
): Promise<string> {
  const enrolled = await multifactor(b, 'googleauth', 'enroll', account, token);
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  const { secret } = enrolled.body as { secret: string };
  const activated = await multifactor(b, 'googleauth', 'activate', account, token, { code: b.totp(secret) });
  expect(activated.status, JSON.stringify(activated.body)).toBe(200);
  return secret;
}

/**
 * Enrols and activates email through the API with the code the source sent, then lets the 30 s email-send limit
 * pass (the portal's clock) for the test's next send.
 */
export async function setUpEmail(
  b: ContractBackend,
  account: ContractAccount,
  token = account.token,
): Promise<void> {
  const enrolled = await multifactor(b, 'email', 'enroll', account, token);
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(200);
  const code = await b.lastEmailCode(account);
  const activated = await multifactor(b, 'email', 'activate', account, token, { code });
  expect(activated.status, JSON.stringify(activated.body)).toBe(200);
  b.clock.advance(30_000);
}

/** A 6-digit code that is not `code`. */
export const otherCode = (code: string) => (code === '000000' ? '111111' : '000000');

/** The factors at the source as "kind STATUS", sorted: what a test compares. */
export async function sourceFactors(b: ContractBackend, account: ContractAccount): Promise<string[]> {
  return (await b.factorsAtSource(account)).map((f) => `${f.kind} ${f.status}`).sort();
}
