/**
 * Devices in Okta mode (issue 22, project `okta`): the org lists no sessions, so the portal records each Okta
 * sign-in (the account and its tokens' `auth_time`) at the first call its tokens make, described from that call,
 * and lists those. Here what is Okta mode's own: the first call records and later ones (renewed tokens too) do not
 * add a row, a burst of first calls makes one row, "last active" is written at most once a minute, a signed-out
 * sign-in's renewed tokens are refused while a new sign-in is not, "sign out everywhere" and "This wasn't me" empty
 * the list, and the rows go after the retention window, an ended one only once its tokens stopped coming. Both
 * backends' behaviour: test/contract/sessions.test.ts.
 */
import { API_ERROR_CODES, apiCalls, pathOf } from 'shared-auth/contract';
import { describe, expect, it, vi } from 'vitest';
import { ORG_SESSION_RETENTION_MS } from '../src/devices/org-sessions.js';
import { FEDERATED_SIGN_IN_AGAIN_ERROR } from '../src/devices/sign-out-proof.js';
import { parseTwice } from './helpers.js';
import { useContractBackend, type ContractAccount, type ContractBackend } from './contract/backend.js';
import { setUpAuthenticator } from './contract/support-factors.js';

const backend = useContractBackend();

const MINUTE = 60_000;
const FIREFOX_LINUX = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

function okta(): ContractBackend {
  const b = backend();
  if (b.kind !== 'okta') throw new Error('test/okta-devices.test.ts runs in the okta project only');
  return b;
}

/** A token of the account's sign-in made at `authTime` (seconds): a new one, or one its page renewed. */
const tokenOfSignIn = (b: ContractBackend, account: ContractAccount, authTime: number) =>
  b.signIn(account, { authTimeAgoMs: Date.now() - (authTime * 1000 + 500) });

/** An API call from a browser: its User-Agent and address. */
async function callFrom(
  b: ContractBackend,
  account: ContractAccount,
  token: string,
  from: { userAgent?: string; ip?: string } = {},
) {
  const response = await b.app.inject({
    method: 'GET',
    url: pathOf(apiCalls.isFederated.path, { sub: account.sub }),
    headers: { authorization: `Bearer ${token}`, 'user-agent': from.userAgent ?? FIREFOX_LINUX },
    remoteAddress: from.ip ?? '81.2.69.160',
  });
  return response.statusCode;
}

async function listOf(b: ContractBackend, account: ContractAccount, token = account.token) {
  const answer = await b.call('GET', pathOf(apiCalls.sessions.path, { sub: account.sub }), token);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return apiCalls.sessions.response.parse(answer.body).sessions;
}

const rowsOf = (b: ContractBackend, account: ContractAccount) =>
  b.app.storage.sql.all<{ id: string; ended_at: number | null }>(
    'SELECT id, ended_at FROM org_sessions WHERE user_id = ? ORDER BY id',
    [account.sub],
  );

/** The account's notices (subject and text), oldest first. */
const noticesOf = (b: ContractBackend, account: ContractAccount) =>
  b.app.storage.sql.all<{ subject: string; text: string }>(
    'SELECT subject, text FROM notifications WHERE user_id = ? ORDER BY id',
    [account.sub],
  );

const secondsAgo = (minutes: number) => Math.floor((Date.now() - minutes * MINUTE) / 1000);

describe('Okta mode: the sign-ins the API saw', () => {
  it('records a sign-in at its first call, described from it; later calls and renewed tokens add no row', async () => {
    const b = okta();
    const ada = await b.newAccount();
    const phoneSignIn = secondsAgo(30);
    const phone = await tokenOfSignIn(b, ada, phoneSignIn);
    expect(await callFrom(b, ada, phone, { userAgent: SAFARI_IPHONE, ip: '81.2.69.160' })).toBe(200);
    // The same sign-in again, from elsewhere and with a renewed token: still the first call's description.
    expect(await callFrom(b, ada, phone, { userAgent: FIREFOX_LINUX, ip: '2.125.160.216' })).toBe(200);
    const renewed = await tokenOfSignIn(b, ada, phoneSignIn);
    expect(renewed).not.toBe(phone);
    expect(await callFrom(b, ada, renewed, { userAgent: FIREFOX_LINUX })).toBe(200);

    const sessions = await listOf(b, ada);
    expect(sessions).toHaveLength(2);
    expect(sessions[0]).toMatchObject({ current: true });
    expect(sessions[1]).toMatchObject({
      current: false,
      browser: 'Safari',
      os: 'iOS',
      deviceType: 'mobile',
      address: '81.2.69.x',
      signedInAt: new Date(phoneSignIn * 1000).toISOString(),
    });
    expect(await rowsOf(b, ada)).toHaveLength(2);
    // No token, and no clear sign-in, is stored: only the hash of the account and its auth_time.
    const stored = JSON.stringify(await b.app.storage.sql.all('SELECT * FROM org_sessions'));
    expect(stored).not.toContain(phone.split('.')[1] ?? phone);
    expect(stored).not.toContain(`auth_time:${phoneSignIn}`);
  });

  it('makes one row of a burst of parallel first calls', async () => {
    const b = okta();
    const ada = await b.newAccount();
    const laptop = await tokenOfSignIn(b, ada, secondsAgo(10));
    const statuses = await Promise.all(Array.from({ length: 12 }, () => callFrom(b, ada, laptop)));
    expect(statuses.every((status) => status === 200)).toBe(true);
    expect(await rowsOf(b, ada)).toHaveLength(1);
    expect(await listOf(b, ada, laptop)).toEqual([expect.objectContaining({ current: true })]);
  });

  it('writes "last active" at most once a minute', async () => {
    const b = okta();
    const ada = await b.newAccount();
    expect(await callFrom(b, ada, ada.token)).toBe(200);
    const first = (await listOf(b, ada))[0]?.lastActiveAt;
    const seen = vi.spyOn(b.app.storage.orgSessions, 'seen');
    b.clock.advance(30_000);
    for (let i = 0; i < 5; i++) expect(await callFrom(b, ada, ada.token)).toBe(200);
    expect(seen).not.toHaveBeenCalled();
    expect((await listOf(b, ada))[0]?.lastActiveAt).toBe(first);
    b.clock.advance(31_000);
    expect(await callFrom(b, ada, ada.token)).toBe(200);
    expect(seen).toHaveBeenCalledTimes(1);
    expect((await listOf(b, ada))[0]?.lastActiveAt).toBe(new Date(b.clock.now()).toISOString());
  });

  it("refuses a signed-out sign-in's renewed tokens at once; a new sign-in on that device is listed anew", async () => {
    const b = okta();
    const ada = await b.newAccount();
    await setUpAuthenticator(b, ada);
    const lostSignIn = secondsAgo(20);
    const lost = await tokenOfSignIn(b, ada, lostSignIn);
    expect(await callFrom(b, ada, lost)).toBe(200);
    const target = (await listOf(b, ada))[1];
    const answer = await b.call(
      'DELETE',
      pathOf(apiCalls.sessionSignOut.path, { sub: ada.sub, id: target?.id ?? '' }),
      ada.token,
    );
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await callFrom(b, ada, lost)).toBe(401);
    // The notice says what ended: its use of this portal, not the org's sign-in.
    const notice = (await noticesOf(b, ada)).at(-1);
    expect(notice?.subject).toBe('A device was signed out of My Profile');
    expect(notice?.text).toContain('was signed out of this portal');
    expect(notice?.text).toContain("Your organization's sign-in may stay open on it for other apps.");
    // Okta still renews it (its session is the org's): the renewed token is refused as well.
    expect(await callFrom(b, ada, await tokenOfSignIn(b, ada, lostSignIn))).toBe(401);
    const again = await tokenOfSignIn(b, ada, secondsAgo(1));
    expect(await callFrom(b, ada, again)).toBe(200);
    const sessions = await listOf(b, ada);
    expect(sessions).toHaveLength(2);
    expect(sessions.map((session) => session.id)).not.toContain(target?.id);
  });

  it('"sign out everywhere" leaves no sign-in listed', async () => {
    const b = okta();
    const ada = await b.newAccount();
    await setUpAuthenticator(b, ada);
    expect(await callFrom(b, ada, await tokenOfSignIn(b, ada, secondsAgo(5)))).toBe(200);
    b.clock.advance(2000);
    const answer = await b.call(
      'POST',
      pathOf(apiCalls.sessionsSignOutEverywhere.path, { sub: ada.sub }),
      ada.token,
    );
    expect(answer.status).toBe(200);
    expect((await rowsOf(b, ada)).every((row) => row.ended_at !== null)).toBe(true);
    // Everywhere reaches the org's sessions too: the notice says every device.
    expect((await noticesOf(b, ada)).at(-1)?.subject).toBe('Every device was signed out of your F5 account');
    expect(await b.app.storage.orgSessions.listLive(ada.sub, 0)).toEqual([]);
  });

  it('"This wasn\'t me" leaves no sign-in listed either', async () => {
    const b = okta();
    const ada = await b.newAccount();
    expect(await callFrom(b, ada, await tokenOfSignIn(b, ada, secondsAgo(5)))).toBe(200);
    expect(await callFrom(b, ada, ada.token)).toBe(200);
    b.clock.advance(2000);
    const answer = await b.call('POST', pathOf(apiCalls.activityNotMe.path, { sub: ada.sub }), ada.token, {
      eventId: '0f8e8c2a-5d1b-11ef-8a6b-2b7584bf8d5a',
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(await rowsOf(b, ada)).toHaveLength(2);
    expect(await b.app.storage.orgSessions.listLive(ada.sub, 0)).toEqual([]);
  });

  it('drops sign-ins not seen for the window; keeps an ended one while its tokens keep coming', async () => {
    const b = okta();
    const ada = await b.newAccount();
    await setUpAuthenticator(b, ada);
    const idle = await tokenOfSignIn(b, ada, secondsAgo(30));
    const lostSignIn = secondsAgo(20);
    const lost = await tokenOfSignIn(b, ada, lostSignIn);
    for (const token of [idle, lost]) expect(await callFrom(b, ada, token)).toBe(200);
    const lostId = (await listOf(b, ada, lost)).find((session) => session.current)?.id ?? '';
    const signedOut = await b.call(
      'DELETE',
      pathOf(apiCalls.sessionSignOut.path, { sub: ada.sub, id: lostId }),
      ada.token,
    );
    expect(signedOut.status).toBe(200);

    // Most of a window later the lost device tries again (refused), then the window passes for the idle one.
    b.clock.advance(ORG_SESSION_RETENTION_MS - 10 * MINUTE);
    expect(await callFrom(b, ada, lost)).toBe(401);
    b.clock.advance(20 * MINUTE);
    const sessions = await listOf(b, ada);
    expect(sessions).toEqual([expect.objectContaining({ current: true })]);
    // The job deletes the idle one (other tests' rows of this file may go too: the clock moved for all).
    expect(await b.app.devices.prune()).toBeGreaterThanOrEqual(1);
    expect((await rowsOf(b, ada)).map((row) => row.ended_at !== null).sort()).toEqual([false, true]);
    expect(await callFrom(b, ada, await tokenOfSignIn(b, ada, lostSignIn))).toBe(401);
    // The idle sign-in comes back: listed again, as a sign-in first seen now.
    expect(await callFrom(b, ada, idle)).toBe(200);
    expect(await listOf(b, ada)).toHaveLength(2);
  });

  it('answers the list without a token, another account or a token of no sign-in as the API does', async () => {
    const b = okta();
    const ada = await b.newAccount();
    const bob = await b.newAccount();
    const url = pathOf(apiCalls.sessions.path, { sub: ada.sub });
    expect((await b.call('GET', url, undefined)).status).toBe(401);
    expect((await b.call('GET', url, bob.token)).status).toBe(403);
    const answer = await b.app.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${ada.token}` },
    });
    expect(answer.statusCode).toBe(200);
    expect(parseTwice(answer.body)).toMatchObject({ reach: 'portal' });
  });
});

describe('Okta mode: a federated account with a 2-step method of the org', () => {
  it("signs out with a recent sign-in as its proof (the portal's step-up screens are not theirs); an older sign-in is told to sign in again", async () => {
    const b = okta();
    const fed = await b.newAccount({ federated: true });
    const user = await b.app.identity.findById(fed.sub);
    if (!user) throw new Error('no federated user');
    await b.app.identity.enrol(user, 'email');
    await b.app.identity.activate(fed.sub, 'email', await b.lastEmailCode(fed));
    expect(await b.app.stepUp.hasActiveFactor(fed.sub)).toBe(true);
    const others = pathOf(apiCalls.sessionsSignOutOthers.path, { sub: fed.sub });

    const older = await b.signIn(fed, { authTimeAgoMs: 10 * MINUTE });
    expect(await callFrom(b, fed, fed.token)).toBe(200);
    expect(await callFrom(b, fed, older)).toBe(200);
    const refused = await b.call('POST', others, older);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: FEDERATED_SIGN_IN_AGAIN_ERROR,
      code: API_ERROR_CODES.reauthenticationRequired,
      proof: 'sign-in',
    });
    // Not the step-up screens' refusal: those would be refused to them in turn (spec section 6).
    const challenge = await b.call('GET', pathOf(apiCalls.stepUpChallenge.path, { sub: fed.sub }), older);
    expect(challenge.body).toMatchObject({ code: API_ERROR_CODES.federatedUser });
    expect(await listOf(b, fed, older)).toHaveLength(2);

    // Signed in again a moment ago: that sign-in asked for their methods, so it is the proof.
    const fresh = await b.signIn(fed, { authTimeAgoMs: MINUTE });
    const done = await b.call('POST', others, fresh);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(await callFrom(b, fed, older)).toBe(401);
    expect(await callFrom(b, fed, fed.token)).toBe(401);
    expect(await callFrom(b, fed, fresh)).toBe(200);
    const notice = (await noticesOf(b, fed)).at(-1);
    expect(notice?.subject).toBe('Your other devices were signed out of My Profile');
    expect(notice?.text).toContain('was signed out of this portal, except the one used to do it');
  });
});
