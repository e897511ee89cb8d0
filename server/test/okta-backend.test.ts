/**
 * The API in Okta mode, end to end against the Okta org stand-in (test/support/okta-org, every request and answer
 * checked against Okta's published specification): the profile, the password and the 2-step factors live in Okta;
 * the portal keeps only step-up grants, throttles and notices, and never a row in `users`.
 */
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import {
  apiPaths,
  INVALID_CODE_ERROR,
  PASSWORD_CHANGE_ERRORS,
  PASSWORD_RULE_SERVER_ERRORS,
} from 'shared-auth/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseTwice, type TestApp } from './helpers.js';
import { requirementsText, DEFAULT_PASSWORD_POLICY } from './support/okta-org/index.js';
import { useOktaOrg } from './support/okta-org/vitest.js';
import { countUsers, oktaAuthorizationServer, startOktaPortal } from './support/okta-portal.js';

const FEDERATED_ATTRIBUTE = 'portalFederated';
const ADMIN_TOKEN = 'admin-api-token';
const PASSWORD = 'Correct-Horse-1';
/** The org asks for a symbol too: a password the portal's own rules accept can still be refused by the org. */
const ORG_POLICY = { ...DEFAULT_PASSWORD_POLICY, minSymbol: 1 };

const server = oktaAuthorizationServer();
const org = useOktaOrg({
  jwks: server.jwks,
  passwordPolicy: ORG_POLICY,
  customProfileAttributes: { [FEDERATED_ATTRIBUTE]: { type: 'boolean' } },
  // For the test's own changes "made in Okta's admin".
  apiToken: ADMIN_TOKEN,
});

/** The portal's clock (throttles, grants, the per-call user cache): moved by hand, never slept on. */
const clock = {
  now: Date.now(),
  advance(ms: number) {
    clock.now += ms;
  },
};
let t: TestApp;

beforeAll(async () => {
  t = await startOktaPortal(
    org(),
    { OKTA_FEDERATED_ATTRIBUTE: FEDERATED_ATTRIBUTE },
    { now: () => clock.now },
  );
});
beforeEach(() => {
  clock.now = Date.now();
});
afterEach(async () => {
  // Whatever a test did, the portal kept no account of its own.
  expect(await countUsers(t)).toBe(0);
});
afterAll(async () => {
  await t?.close();
});

interface Account {
  id: string;
  login: string;
  password: string;
  token: string;
}

let accounts = 0;
/** A user in the org and a fresh access token for them (a sign-in just now: auth_time = now). */
async function newAccount(options: { federated?: boolean } = {}): Promise<Account> {
  accounts += 1;
  const login = `ada${accounts}@customer.example`;
  const user = org().addUser({
    profile: {
      login,
      email: login,
      firstName: 'Ada',
      lastName: 'Lovelace',
      countryCode: 'GB',
      title: 'Countess',
    },
    ...(options.federated
      ? { provider: { type: 'FEDERATION' as const, name: 'FEDERATION' } }
      : { password: PASSWORD }),
  });
  const account = { id: user.id, login, password: PASSWORD };
  return { ...account, token: await server.token(org(), account) };
}

/** Another sign-in of the same account: another token (another `jti`), so its own step-up grant. */
const anotherSession = (account: Account, claims: Record<string, unknown> = {}) =>
  server.token(org(), account, claims);

interface Answer {
  status: number;
  body: unknown;
  response: LightMyRequestResponse;
}

async function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  token: string | undefined,
  body?: unknown,
): Promise<Answer> {
  const response = await t.app.inject({
    method,
    url,
    headers: {
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  const parsed = response.statusCode === 200 ? parseTwice(response.body) : response.json<unknown>();
  return { status: response.statusCode, body: parsed, response };
}

/** The org's requests since `mark`, as "METHOD operationId status". */
function oktaCallsSince(mark: number): string[] {
  return org()
    .requests()
    .slice(mark)
    .map((r) => `${r.method} ${r.operationId ?? r.path} ${r.status}`);
}
const mark = () => org().requests().length;
const passwordChangesSince = (since: number) =>
  oktaCallsSince(since).filter((line) => line.includes('changePassword'));

/** A TOTP code of Okta's shared secret, `offsetSteps` 30 s steps from now (Okta accepts one step either side). */
const totp = (secret: string, offsetSteps = 0) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offsetSteps * 30_000 });

/** The notices queued for the user, by subject. */
async function notices(userId: string): Promise<string[]> {
  const rows = await t.app.storage.sql.all<{ subject: string }>(
    'SELECT subject FROM notifications WHERE user_id = ? ORDER BY id',
    [userId],
  );
  return rows.map((row) => row.subject);
}

/** A change "made in Okta's admin": the Management API with an admin's token, not through the portal. */
async function changeInOkta(userId: string, profile: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${org().url}/api/v1/users/${userId}`, {
    method: 'POST',
    headers: { authorization: `SSWS ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ profile }),
  });
  expect(response.status).toBe(200);
}

/** Enrols and activates the authenticator app through the API; answers Okta's shared secret. */
async function setUpAuthenticator(account: Account, token = account.token): Promise<string> {
  const enrolled = await call('POST', apiPaths.multifactor('googleauth', account.id, 'enroll'), token);
  expect(enrolled.status).toBe(200);
  const { secret } = enrolled.body as { secret: string };
  // One step back: the step-up checks that follow use later steps (Okta takes each step once).
  const activated = await call('POST', apiPaths.multifactor('googleauth', account.id, 'activate'), token, {
    code: totp(secret, -1),
  });
  expect(activated.status).toBe(200);
  return secret;
}

/** Enrols and activates email through the API with the code Okta "sent". */
async function setUpEmail(account: Account, token = account.token): Promise<void> {
  const enrolled = await call('POST', apiPaths.multifactor('email', account.id, 'enroll'), token);
  expect(enrolled).toMatchObject({ status: 200, body: { status: 'PENDING_ACTIVATION' } });
  const activated = await call('POST', apiPaths.multifactor('email', account.id, 'activate'), token, {
    code: org().lastEmailCode(account.id),
  });
  expect(activated).toMatchObject({ status: 200, body: { status: 'ACTIVE' } });
}

describe('the profile', () => {
  it('an update reaches Okta as a partial POST of the changed attributes (never a PUT); the answer is what Okta holds', async () => {
    const ada = await newAccount();
    const before = mark();
    const saved = await call('PUT', apiPaths.profileUpdate(ada.id), ada.token, {
      firstName: 'Augusta',
      country: 'FR',
    });
    expect(saved).toMatchObject({
      status: 200,
      body: { sub: ada.id, email: ada.login, firstName: 'Augusta', lastName: 'Lovelace', country: 'FR' },
    });
    const sent = org()
      .requests()
      .slice(before)
      .filter((r) => r.operationId === 'updateUser' || r.operationId === 'replaceUser');
    expect(sent.map((r) => `${r.method} ${r.operationId}`)).toEqual(['POST updateUser']);
    expect(sent[0]?.body).toEqual({ profile: { firstName: 'Augusta', countryCode: 'FR' } });
    // The attributes not sent are Okta's as before (a PUT would have deleted title).
    expect(org().user(ada.id)?.profile).toMatchObject({
      firstName: 'Augusta',
      lastName: 'Lovelace',
      countryCode: 'FR',
      title: 'Countess',
    });
  });

  it("isfederated comes from the Okta user: its credentials provider, or the org's federated attribute", async () => {
    const ada = await newAccount();
    const sam = await newAccount({ federated: true });
    expect((await call('GET', apiPaths.isFederated(ada.id), ada.token)).body).toEqual({ isFederated: false });
    expect((await call('GET', apiPaths.isFederated(sam.id), sam.token)).body).toEqual({ isFederated: true });
    await changeInOkta(ada.id, { [FEDERATED_ATTRIBUTE]: true });
    expect((await call('GET', apiPaths.isFederated(ada.id), ada.token)).body).toEqual({ isFederated: true });
  });

  it('the per-call read of the user is cached for 30 s per instance; the profile GET always reads Okta', async () => {
    const ada = await newAccount();
    const getUsers = (since: number) => oktaCallsSince(since).filter((c) => c.startsWith('GET getUser'));
    let since = mark();
    await call('GET', apiPaths.isFederated(ada.id), ada.token);
    // The auth hook's read was fresh: the route used it.
    expect(getUsers(since)).toEqual(['GET getUser 200']);

    await changeInOkta(ada.id, { [FEDERATED_ATTRIBUTE]: true });
    since = mark();
    expect((await call('GET', apiPaths.isFederated(ada.id), ada.token)).body).toEqual({ isFederated: true });
    // The hook's user came from the cache; the answer read Okta again.
    expect(getUsers(since)).toEqual(['GET getUser 200']);
    // A call that shows nothing answers from the cached user, as it was read within the last 30 s: the GET above
    // refreshed it, so the profile update is refused as federated at once.
    since = mark();
    const refused = await call('PUT', apiPaths.profileUpdate(ada.id), ada.token, { firstName: 'Augusta' });
    expect(refused).toMatchObject({ status: 403, body: { code: 'federated_user' } });
    expect(getUsers(since)).toEqual([]);

    // A change in Okta that this instance did not read shows on the per-call path once the entry is 30 s old.
    await changeInOkta(ada.id, { [FEDERATED_ATTRIBUTE]: false });
    expect(
      (await call('PUT', apiPaths.profileUpdate(ada.id), ada.token, { firstName: 'Augusta' })).status,
    ).toBe(403);
    clock.advance(30_000);
    since = mark();
    const saved = await call('PUT', apiPaths.profileUpdate(ada.id), ada.token, { firstName: 'Augusta' });
    expect(saved).toMatchObject({ status: 200, body: { firstName: 'Augusta' } });
    expect(getUsers(since)).toEqual(['GET getUser 200']);
  });
});

describe('the password', () => {
  it('the right old password: Okta holds the new one and refuses the old; the notice is queued; Okta sessions are left alone', async () => {
    const ada = await newAccount();
    const before = mark();
    const changed = await call('PUT', apiPaths.passwordChange(ada.id), ada.token, {
      OldPassword: PASSWORD,
      NewPassword: 'Brand-New-Pass-2',
    });
    expect(changed).toMatchObject({ status: 200, body: { status: 'changed' } });
    // Nothing was hashed here: no argon2 timing.
    expect(changed.response.headers['server-timing']).toBeUndefined();
    expect(oktaCallsSince(before)).toContain('POST changePassword 200');
    expect(org().passwordMatches(ada.id, 'Brand-New-Pass-2')).toBe(true);
    expect(org().passwordMatches(ada.id, PASSWORD)).toBe(false);
    expect(org().user(ada.id)?.sessionRevocations).toEqual([]);
    expect(await notices(ada.id)).toEqual(['Your F5 account password was changed']);

    // The old password is Okta's to refuse now.
    const again = await call('PUT', apiPaths.passwordChange(ada.id), ada.token, {
      OldPassword: PASSWORD,
      NewPassword: 'Third-Pass-333!',
    });
    expect(again).toMatchObject({
      status: 400,
      body: { error: PASSWORD_CHANGE_ERRORS.wrongCurrentPassword, code: 'wrong_password' },
    });
  });

  it("the org's own policy refuses with its requirements text (the page's dialog); the portal's rules still come first", async () => {
    const ada = await newAccount();
    // The portal's rules: Okta is not asked.
    let before = mark();
    const short = await call('PUT', apiPaths.passwordChange(ada.id), ada.token, {
      OldPassword: PASSWORD,
      NewPassword: 'Short1',
    });
    expect(short).toMatchObject({
      status: 400,
      body: { error: PASSWORD_RULE_SERVER_ERRORS.length, code: 'password_policy' },
    });
    expect(passwordChangesSince(before)).toEqual([]);

    // Passes the portal's rules, not the org's (no symbol).
    before = mark();
    const refused = await call('PUT', apiPaths.passwordChange(ada.id), ada.token, {
      OldPassword: PASSWORD,
      NewPassword: 'NoSymbolHere42',
    });
    expect(refused).toMatchObject({
      status: 400,
      body: { error: requirementsText(ORG_POLICY), code: 'password_policy' },
    });
    expect(passwordChangesSince(before)).toEqual(['POST changePassword 400']);
    expect(org().passwordMatches(ada.id, PASSWORD)).toBe(true);
  });

  it('wrong old passwords are counted by the portal: after 5, 429 with Retry-After even with the right one, Okta is not asked, the holder is told once', async () => {
    const ada = await newAccount();
    for (let i = 0; i < 5; i += 1) {
      const wrong = await call('PUT', apiPaths.passwordChange(ada.id), ada.token, {
        OldPassword: `Wrong-Guess-${i}`,
        NewPassword: 'Brand-New-Pass-2',
      });
      expect(wrong).toMatchObject({
        status: 400,
        body: { error: PASSWORD_CHANGE_ERRORS.wrongCurrentPassword, code: 'wrong_password' },
      });
    }
    const before = mark();
    const locked = await call('PUT', apiPaths.passwordChange(ada.id), ada.token, {
      OldPassword: PASSWORD,
      NewPassword: 'Brand-New-Pass-2',
    });
    expect(locked).toMatchObject({ status: 429, body: { code: 'rate_limited' } });
    expect(Number(locked.response.headers['retry-after'])).toBeGreaterThan(0);
    expect(passwordChangesSince(before)).toEqual([]);
    expect(org().passwordMatches(ada.id, PASSWORD)).toBe(true);
    // Kept by the portal for an account that has no row of its own here.
    const counted = await t.app.storage.sql.get<{ n: number }>(
      'SELECT count(*) AS n FROM password_change_failures WHERE user_id = ?',
      [ada.id],
    );
    expect(Number(counted?.n)).toBe(5);
    expect(await notices(ada.id)).toEqual([
      'Password changes on your F5 account are paused after wrong passwords',
    ]);
  });

  it('"Confirm it\'s you" cannot check an Okta password (409 no_local_password); a recent sign-in is the proof a first factor needs', async () => {
    const ada = await newAccount();
    const confirm = await call('POST', apiPaths.reauthenticate(ada.id), ada.token, { password: PASSWORD });
    expect(confirm).toMatchObject({ status: 409, body: { code: 'no_local_password' } });
    // Signed in 10 minutes ago (auth_time): turning on a first factor needs fresh proof.
    const stale = await anotherSession(ada, { auth_time: Math.floor(Date.now() / 1000) - 600 });
    const before = mark();
    const enrol = await call('POST', apiPaths.multifactor('googleauth', ada.id, 'enroll'), stale);
    expect(enrol).toMatchObject({ status: 403, body: { code: 'reauthentication_required' } });
    expect(oktaCallsSince(before).filter((c) => c.startsWith('POST'))).toEqual([]);
  });
});

describe('2-step factors in Okta', () => {
  it("the authenticator app: Okta's shared secret, activated with a code computed from it, a step-up whose code works once (E0000082)", async () => {
    const ada = await newAccount();
    const enrolled = await call('POST', apiPaths.multifactor('googleauth', ada.id, 'enroll'), ada.token);
    expect(enrolled.status).toBe(200);
    const { secret, qrLink } = enrolled.body as { secret: string; qrLink: string };
    expect(org().user(ada.id)?.factors).toMatchObject([
      {
        factorType: 'token:software:totp',
        provider: 'GOOGLE',
        status: 'PENDING_ACTIVATION',
        sharedSecret: secret,
      },
    ]);
    expect(new URL(qrLink).searchParams.get('secret')).toBe(secret);
    expect(
      (await call('GET', apiPaths.multifactor('googleauth', ada.id, 'details'), ada.token)).body,
    ).toEqual({ enrolled: false, enrolledDate: null });

    const wrong = await call('POST', apiPaths.multifactor('googleauth', ada.id, 'activate'), ada.token, {
      code: totp(secret, 10),
    });
    expect(wrong).toMatchObject({ status: 400, body: { error: INVALID_CODE_ERROR, code: 'invalid_code' } });
    const activated = await call('POST', apiPaths.multifactor('googleauth', ada.id, 'activate'), ada.token, {
      code: totp(secret, -1),
    });
    expect(activated).toMatchObject({
      status: 200,
      body: { status: 'ACTIVE', enrolledDate: expect.stringMatching(/^\d{4}-/) },
    });
    expect(org().user(ada.id)?.factors).toMatchObject([{ status: 'ACTIVE' }]);
    expect(await notices(ada.id)).toEqual(['Google Authenticator is now on for your F5 account']);

    // Another sign-in of the account has no step-up grant yet.
    const other = await anotherSession(ada);
    expect((await call('GET', apiPaths.stepUpChallenge(ada.id), other)).body).toEqual({
      challengeUser: true,
      activeFactorsData: { googleAuth: {} },
    });
    expect(await call('GET', apiPaths.multifactor('googleauth', ada.id, 'details'), other)).toMatchObject({
      status: 403,
      body: { code: 'step_up_required' },
    });
    const code = totp(secret);
    const verified = await call('POST', apiPaths.stepUpVerify(ada.id, 'google-auth'), other, {
      passCode: code,
    });
    expect(verified).toMatchObject({ status: 200, body: { status: 'VERIFIED' } });
    // Okta takes each code once (E0000082): the same code again is a wrong code.
    const replayed = await call('POST', apiPaths.stepUpVerify(ada.id, 'google-auth'), other, {
      passCode: code,
    });
    expect(replayed).toMatchObject({ status: 400, body: { error: INVALID_CODE_ERROR } });
    expect(
      (await call('GET', apiPaths.multifactor('googleauth', ada.id, 'details'), other)).body,
    ).toMatchObject({ enrolled: true });
    expect((await call('GET', apiPaths.stepUpChallenge(ada.id), other)).body).toMatchObject({
      challengeUser: false,
    });
  });

  it("email: enrolled with the code Okta sent, then a step-up code Okta sends; the portal's send limit holds Okta back", async () => {
    const ada = await newAccount();
    await setUpEmail(ada);
    expect(org().user(ada.id)?.factors).toMatchObject([{ factorType: 'email', status: 'ACTIVE' }]);

    const other = await anotherSession(ada);
    clock.advance(30_000);
    const sent = await call('POST', apiPaths.stepUpSendChallenge(ada.id, 'email'), other);
    expect(sent).toMatchObject({
      status: 200,
      body: { status: 'SENT', maskedEmail: expect.stringContaining('@') },
    });
    const code = org()
      .emailCodes(ada.id)
      .filter((c) => c.purpose === 'verification' && c.usable)
      .at(-1)?.code;
    expect(code).toMatch(/^\d{6}$/);
    // Within 30 s: the portal refuses before Okta is asked.
    const before = mark();
    const again = await call('POST', apiPaths.stepUpSendChallenge(ada.id, 'email'), other);
    expect(again).toMatchObject({ status: 429, body: { code: 'rate_limited' } });
    expect(oktaCallsSince(before).filter((c) => c.startsWith('POST'))).toEqual([]);

    const verified = await call('POST', apiPaths.stepUpVerify(ada.id, 'email'), other, { passCode: code });
    expect(verified).toMatchObject({ status: 200, body: { status: 'VERIFIED' } });
  });

  it('wrong codes are counted by the portal: after 5, 429 even with a right code, and Okta is not asked', async () => {
    const ada = await newAccount();
    const secret = await setUpAuthenticator(ada);
    const other = await anotherSession(ada);
    for (let i = 0; i < 5; i += 1) {
      const wrong = await call('POST', apiPaths.stepUpVerify(ada.id, 'google-auth'), other, {
        passCode: totp(secret, 10 + i),
      });
      expect(wrong).toMatchObject({ status: 400, body: { code: 'invalid_code' } });
    }
    const before = mark();
    const locked = await call('POST', apiPaths.stepUpVerify(ada.id, 'google-auth'), other, {
      passCode: totp(secret),
    });
    expect(locked).toMatchObject({ status: 429, body: { code: 'rate_limited' } });
    expect(oktaCallsSince(before).filter((c) => c.includes('verifyFactor'))).toEqual([]);
  });

  it('turning a factor off removes it in Okta (no "off" there), the last factor stays, and removal deletes the enrolment', async () => {
    const ada = await newAccount();
    await setUpAuthenticator(ada);
    // The activation's grant covers this session. The only active factor cannot go.
    for (const action of ['opt-out', 'reset'] as const) {
      const refused = await call(
        'DELETE',
        apiPaths.multifactor('googleauth', ada.id, action),
        ada.token,
        action === 'reset' ? { optOut: true } : undefined,
      );
      expect(refused).toMatchObject({ status: 409, body: { code: 'last_factor' } });
    }
    clock.advance(30_000);
    await setUpEmail(ada);

    const off = await call('DELETE', apiPaths.multifactor('googleauth', ada.id, 'opt-out'), ada.token);
    expect(off).toMatchObject({ status: 200, body: { status: 'NOT_ENROLLED', enrolledDate: null } });
    expect(
      org()
        .user(ada.id)
        ?.factors.map((f) => f.factorType),
    ).toEqual(['email']);
    // Nothing is left to turn on: it has to be set up again, and the notice says it was removed.
    const on = await call('PUT', apiPaths.multifactor('googleauth', ada.id, 'opt-in'), ada.token);
    expect(on).toMatchObject({ status: 409, body: { code: 'factor_state' } });
    expect((await notices(ada.id)).slice(-1)).toEqual([
      'Google Authenticator was removed from your F5 account',
    ]);

    // Email is the last one now.
    const last = await call('DELETE', apiPaths.multifactor('email', ada.id, 'reset'), ada.token, {
      optOut: true,
    });
    expect(last).toMatchObject({ status: 409, body: { code: 'last_factor' } });

    // A pending enrolment is removed whatever else is set up.
    await call('POST', apiPaths.multifactor('googleauth', ada.id, 'enroll'), ada.token);
    expect(
      org()
        .user(ada.id)
        ?.factors.map((f) => `${f.factorType} ${f.status}`),
    ).toEqual(['email ACTIVE', 'token:software:totp PENDING_ACTIVATION']);
    const removed = await call('DELETE', apiPaths.multifactor('googleauth', ada.id, 'reset'), ada.token, {
      optOut: true,
    });
    expect(removed).toMatchObject({ status: 200, body: { status: 'NOT_ENROLLED' } });
    expect(
      org()
        .user(ada.id)
        ?.factors.map((f) => f.factorType),
    ).toEqual(['email']);
  });
});

describe('the authorization matrix in Okta mode (core columns)', () => {
  type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
  interface Case {
    name: string;
    method: Method;
    path: (sub: string) => string;
    body?: (account: Account) => unknown;
    /** The refusal a federated user gets; undefined where federated users may call it. */
    federated?: string;
    /** Refused without this session's step-up grant once the account has an active factor. */
    stepUp?: true;
  }
  const SECURITY = 'Security settings are not available for federated users';
  const multifactor = (
    factor: 'googleauth' | 'email',
    action: 'enroll' | 'details' | 'activate' | 'opt-in' | 'opt-out' | 'reset',
    method: Method,
    body?: () => unknown,
  ): Case => ({
    name: `${method} multifactor/${factor}/${action}`,
    method,
    path: (sub) => apiPaths.multifactor(factor, sub, action),
    ...(body ? { body } : {}),
    federated: SECURITY,
    stepUp: true,
  });
  const CASES: Case[] = [
    {
      name: 'PUT profile/update',
      method: 'PUT',
      path: apiPaths.profileUpdate,
      body: () => ({ firstName: 'Mallory' }),
      federated: 'Federated users cannot edit their profile',
    },
    { name: 'GET profile/isfederated', method: 'GET', path: apiPaths.isFederated },
    {
      name: 'PUT password/change',
      method: 'PUT',
      path: apiPaths.passwordChange,
      // The account's real current password: only the authorization stands between this and a change.
      body: (account) => ({ OldPassword: account.password, NewPassword: 'Tumbling-Down-7!' }),
      federated: 'Federated users cannot change their password here.',
      stepUp: true,
    },
    { name: 'GET stepup/challenge', method: 'GET', path: apiPaths.stepUpChallenge, federated: SECURITY },
    {
      name: 'POST stepup/email/challenge',
      method: 'POST',
      path: (sub) => apiPaths.stepUpSendChallenge(sub, 'email'),
      federated: SECURITY,
    },
    ...(['google-auth', 'email'] as const).map((factor): Case => ({
      name: `POST stepup/${factor}/verify`,
      method: 'POST',
      path: (sub) => apiPaths.stepUpVerify(sub, factor),
      body: () => ({ passCode: '123456' }),
      federated: SECURITY,
    })),
    {
      name: 'POST stepup/reauthenticate',
      method: 'POST',
      path: apiPaths.reauthenticate,
      body: (account) => ({ password: account.password }),
      federated: SECURITY,
    },
    ...(['googleauth', 'email'] as const).flatMap((factor) => [
      multifactor(factor, 'enroll', 'POST'),
      multifactor(factor, 'details', 'GET'),
      multifactor(factor, 'activate', 'POST', () => ({ code: '123456' })),
      multifactor(factor, 'opt-in', 'PUT'),
      multifactor(factor, 'opt-out', 'DELETE'),
      multifactor(factor, 'reset', 'DELETE', () => ({ optOut: true })),
    ]),
  ];

  let ada: Account;
  let mallory: Account;
  let sam: Account;
  let adaOtherSession: string;
  beforeAll(async () => {
    ada = await newAccount();
    mallory = await newAccount();
    sam = await newAccount({ federated: true });
    await setUpAuthenticator(ada);
    adaOtherSession = await anotherSession(ada);
  });

  const send = (c: Case, token: string | undefined, sub: string, account: Account) =>
    call(c.method, c.path(sub), token, c.body?.(account));

  /** Okta's state of the accounts, and what the portal changed: a refused call changes nothing. */
  const stateOf = async () => ({
    okta: [ada, mallory, sam].map((a) => {
      const user = org().user(a.id);
      return { profile: user?.profile, factors: user?.factors, passwordChanged: user?.passwordChanged };
    }),
    notices: await t.app.storage.sql.all('SELECT user_id, subject FROM notifications ORDER BY id'),
    grants: await t.app.storage.sql.all('SELECT user_id, session_id FROM stepup_grants ORDER BY session_id'),
  });

  it.each(CASES)(
    '$name: refused without a token, for another account, for a federated user, without step-up',
    async (c) => {
      const before = await stateOf();
      const writes = mark();

      const noToken = await send(c, undefined, ada.id, ada);
      expect(noToken.status).toBe(401);
      expect(noToken.response.headers['www-authenticate']).toBe('Bearer');

      const otherSub = await send(c, mallory.token, ada.id, ada);
      expect(otherSub).toMatchObject({
        status: 403,
        body: { error: 'You can only access your own account', code: 'forbidden_sub' },
      });

      if (c.federated !== undefined) {
        const federated = await send(c, sam.token, sam.id, sam);
        expect(federated).toMatchObject({
          status: 403,
          body: { error: c.federated, code: 'federated_user' },
        });
      }
      if (c.stepUp) {
        const noGrant = await send(c, adaOtherSession, ada.id, ada);
        expect(noGrant).toMatchObject({ status: 403, body: { code: 'step_up_required' } });
      }

      // Okta was asked to change nothing (reads only), and nothing changed there or here.
      expect(
        oktaCallsSince(writes).filter((line) => !line.startsWith('GET') && !line.startsWith('POST token')),
      ).toEqual([]);
      expect(await stateOf()).toEqual(before);
    },
  );
});

describe("Okta's rate limits", () => {
  it('a write Okta answers 429 is not repeated: 503 with Retry-After, nothing changed', async () => {
    const ada = await newAccount();
    org().armRateLimit({ path: '/api/v1/users/{id}', method: 'POST', count: 1, resetInSeconds: 30 });
    const before = mark();
    const busy = await call('PUT', apiPaths.profileUpdate(ada.id), ada.token, { firstName: 'Augusta' });
    expect(busy).toMatchObject({ status: 503, body: { code: 'service_unavailable' } });
    const retryAfter = Number(busy.response.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(29);
    expect(retryAfter).toBeLessThanOrEqual(31);
    expect(oktaCallsSince(before).filter((c) => c.includes('updateUser'))).toEqual(['POST updateUser 429']);
    expect(org().user(ada.id)?.profile.firstName).toBe('Ada');
  });

  it("the per-call read beyond the wait budget: 503 with Retry-After (the page's try-again), not a 401", async () => {
    const ada = await newAccount();
    org().armRateLimit({ path: '/api/v1/users/{id}', method: 'GET', count: 1, resetInSeconds: 30 });
    const busy = await call('GET', apiPaths.isFederated(ada.id), ada.token);
    expect(busy).toMatchObject({ status: 503, body: { code: 'service_unavailable' } });
    expect(Number(busy.response.headers['retry-after'])).toBeGreaterThanOrEqual(29);
    // Okta answers again: so does the portal.
    expect((await call('GET', apiPaths.isFederated(ada.id), ada.token)).status).toBe(200);
  });
});
