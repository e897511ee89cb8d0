/**
 * Devices through the API, against each identity backend (issue 22). Embedded: the portal's provider keeps the
 * sessions. Okta: the org's API lists none, so the portal lists the sign-ins whose tokens reached its API, and
 * signing one out refuses its tokens at the API (the Okta session itself stays: `reach: 'portal'`). On both: the
 * caller's first, another sign-in listed, one other signed out (under step-up) and its next call refused, another
 * account's id answered 404, the caller's own 409, "sign out of all other devices" keeping the caller's, and "sign
 * out everywhere" refusing every access token of the account from the next call. Okta mode's own (the first call
 * records, bursts, last active, retention): test/okta-devices.test.ts; the embedded backend's: test/devices.test.ts.
 */
import { API_ERROR_CODES, apiCalls, pathOf, type AccountSessionList } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { useContractBackend, type ContractAccount, type ContractBackend } from './backend.js';
import { setUpAuthenticator } from './support-factors.js';

const backend = useContractBackend();

const MINUTE = 60_000;

const listOf = async (b: ContractBackend, account: ContractAccount, token = account.token) => {
  const answer = await b.call('GET', pathOf(apiCalls.sessions.path, { sub: account.sub }), token);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return apiCalls.sessions.response.parse(answer.body);
};

const isFederated = (b: ContractBackend, account: ContractAccount, token: string) =>
  b.call('GET', pathOf(apiCalls.isFederated.path, { sub: account.sub }), token);

/** Another sign-in of the account (Okta: another `auth_time`), whose token has reached the API once. */
async function otherSignIn(b: ContractBackend, account: ContractAccount, minutesAgo: number) {
  const token = await b.signIn(account, { authTimeAgoMs: minutesAgo * MINUTE });
  expect((await isFederated(b, account, token)).status).toBe(200);
  return token;
}

const ids = (list: AccountSessionList) => list.sessions.map((session) => session.id);

describe('devices', () => {
  it("lists the account's sessions, this one first, with what signing one out reaches", async () => {
    const b = backend();
    const ada = await b.newAccount();
    const other = await otherSignIn(b, ada, 5);
    const list = await listOf(b, ada);
    expect(list.reach).toBe(b.kind === 'okta' ? 'portal' : 'session');
    expect(list.sessions).toHaveLength(2);
    expect(list.sessions[0]).toMatchObject({ current: true });
    expect(list.sessions[1]).toMatchObject({ current: false });
    // The other sign-in sees the same two, itself first.
    const seenByOther = await listOf(b, ada, other);
    expect(ids(seenByOther)).toEqual([...ids(list)].reverse());
  });

  it('signs out one other session under step-up: its next call is refused, the caller stays', async () => {
    const b = backend();
    const ada = await b.newAccount();
    const bob = await b.newAccount();
    await setUpAuthenticator(b, ada);
    const other = await otherSignIn(b, ada, 5);
    const before = await listOf(b, ada);
    const [own, target] = ids(before);
    if (!own || !target) throw new Error('two sessions expected');
    const signOut = (id: string, token = ada.token, sub = ada.sub) =>
      b.call('DELETE', pathOf(apiCalls.sessionSignOut.path, { sub, id }), token);

    // Without a step-up grant (the other session has none): refused, nothing ended.
    const unverified = await signOut(own, other);
    expect(unverified.status).toBe(403);
    expect(unverified.body).toMatchObject({ code: API_ERROR_CODES.stepUpRequired });
    // Another account's caller cannot reach Ada's list with its own sub, nor with hers.
    const bobsOwn = await b.call('GET', pathOf(apiCalls.sessions.path, { sub: bob.sub }), bob.token);
    expect(bobsOwn.status).toBe(200);
    expect(ids(apiCalls.sessions.response.parse(bobsOwn.body))).not.toContain(target);
    expect((await signOut(target, bob.token)).status).toBe(403);
    // Bob's session id, asked by Ada: unknown to her account.
    const [bobsId] = ids(apiCalls.sessions.response.parse(bobsOwn.body));
    const foreign = await signOut(bobsId ?? 'x');
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: API_ERROR_CODES.notFound });
    expect((await signOut('not-an-id')).status).toBe(404);
    const current = await signOut(own);
    expect(current.status).toBe(409);
    expect(current.body).toMatchObject({ code: API_ERROR_CODES.currentSession });

    const answer = await signOut(target);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(ids(apiCalls.sessionSignOut.response.parse(answer.body))).toEqual([own]);
    expect((await isFederated(b, ada, other)).status).toBe(401);
    expect((await isFederated(b, ada, ada.token)).status).toBe(200);
    expect((await isFederated(b, bob, bob.token)).status).toBe(200);
    // Gone: a second sign-out of it is a 404.
    expect((await signOut(target)).status).toBe(404);
  });

  it('signs out of all other devices under step-up, keeping the caller’s', async () => {
    const b = backend();
    const ada = await b.newAccount();
    await setUpAuthenticator(b, ada);
    const others = [await otherSignIn(b, ada, 5), await otherSignIn(b, ada, 10)];
    const before = await listOf(b, ada);
    expect(before.sessions).toHaveLength(3);
    const url = pathOf(apiCalls.sessionsSignOutOthers.path, { sub: ada.sub });
    const [first, second] = await Promise.all([
      b.call('POST', url, ada.token),
      b.call('POST', url, ada.token),
    ]);
    for (const answer of [first, second]) expect(answer?.status, JSON.stringify(answer?.body)).toBe(200);
    const after = apiCalls.sessionsSignOutOthers.response.parse(second?.body);
    expect(ids(after)).toEqual([before.sessions[0]?.id]);
    expect(after.sessions[0]).toMatchObject({ current: true });
    for (const token of others) expect((await isFederated(b, ada, token)).status).toBe(401);
    expect((await isFederated(b, ada, ada.token)).status).toBe(200);
  });

  it('sign out everywhere, under step-up: every access token of the account is refused from the next call', async () => {
    const b = backend();
    const ada = await b.newAccount();
    // Setting up a factor grants this session step-up (and, embedded, renews its token).
    await setUpAuthenticator(b, ada);
    const other = await otherSignIn(b, ada, 5);
    // Okta's tokens are refused by whole seconds of their iat: the change happens in a later second.
    b.clock.advance(2000);
    const answer = await b.call(
      'POST',
      pathOf(apiCalls.sessionsSignOutEverywhere.path, { sub: ada.sub }),
      ada.token,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ status: 'SIGNED_OUT' });
    expect((await isFederated(b, ada, other)).status).toBe(401);
    expect((await isFederated(b, ada, ada.token)).status).toBe(401);
  });
});
