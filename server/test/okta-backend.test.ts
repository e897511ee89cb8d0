/**
 * The API in Okta mode, end to end against the Okta org stand-in (test/support/okta-org, every request and answer
 * checked against Okta's published specification): the profile, the password and the 2-step factors live in Okta;
 * the portal keeps only step-up grants, throttles and notices, and never a row in `users`.
 */
import type { LightMyRequestResponse } from 'fastify';
import { Secret, TOTP } from 'otpauth';
import { apiPaths } from 'shared-auth/contract';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseTwice, type TestApp } from './helpers.js';
import { requirementsText, DEFAULT_PASSWORD_POLICY } from './support/okta-org/index.js';
import { useOktaOrg } from './support/okta-org/vitest.js';
import {
  countUsers,
  OKTA_PORTAL_CLIENT_ID,
  oktaAuthorizationServer,
  startOktaPortal,
} from './support/okta-portal.js';

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

/**
 * What only Okta mode shows of the profile and the password: the requests the portal sends Okta, the attributes it
 * leaves alone, its per-call cache. What both backends do (isfederated from the source, the partial update held by
 * the source, the refusals, the change with the right or a wrong password, the portal's rules first, the source's
 * policy text, the wrong-password throttle) is the contract suite's, run against this backend too:
 * test/contract/{profile,password,errors}.test.ts.
 */
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

  it("isfederated also comes from the org's federated attribute (OKTA_FEDERATED_ATTRIBUTE)", async () => {
    const ada = await newAccount();
    expect((await call('GET', apiPaths.isFederated(ada.id), ada.token)).body).toEqual({ isFederated: false });
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
  it("a change is one call of Okta's changePassword (nothing hashed here); Okta's sessions are left alone", async () => {
    const ada = await newAccount();
    const before = mark();
    const changed = await call('PUT', apiPaths.passwordChange(ada.id), ada.token, {
      OldPassword: PASSWORD,
      NewPassword: 'Brand-New-Pass-2',
    });
    expect(changed).toMatchObject({ status: 200, body: { status: 'changed' } });
    // Nothing was hashed here: no argon2 timing.
    expect(changed.response.headers['server-timing']).toBeUndefined();
    expect(passwordChangesSince(before)).toEqual(['POST changePassword 200']);
    expect(org().user(ada.id)?.sessionRevocations).toEqual([]);
    // Only the refresh tokens of the portal's client end (test/okta-refresh-revocation.test.ts).
    expect(org().user(ada.id)?.refreshTokenRevocations).toMatchObject([{ clientId: OKTA_PORTAL_CLIENT_ID }]);
  });

  it("the portal's rules are checked before Okta is asked; the org's policy is Okta's answer to one changePassword", async () => {
    const ada = await newAccount();
    // The portal's rules: Okta is not asked.
    let before = mark();
    const short = await call('PUT', apiPaths.passwordChange(ada.id), ada.token, {
      OldPassword: PASSWORD,
      NewPassword: 'Short1',
    });
    expect(short).toMatchObject({ status: 400, body: { code: 'password_policy' } });
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
  });

  it('wrong old passwords are counted by the portal, for an account without a row here: once refused, Okta is not asked', async () => {
    const ada = await newAccount();
    for (let i = 0; i < 5; i += 1) {
      const wrong = await call('PUT', apiPaths.passwordChange(ada.id), ada.token, {
        OldPassword: `Wrong-Guess-${i}`,
        NewPassword: 'Brand-New-Pass-2',
      });
      expect(wrong).toMatchObject({ status: 400, body: { code: 'wrong_password' } });
    }
    const before = mark();
    const locked = await call('PUT', apiPaths.passwordChange(ada.id), ada.token, {
      OldPassword: PASSWORD,
      NewPassword: 'Brand-New-Pass-2',
    });
    expect(locked).toMatchObject({ status: 429, body: { code: 'rate_limited' } });
    expect(passwordChangesSince(before)).toEqual([]);
    // Kept by the portal for an account that has no row of its own here.
    const counted = await t.app.storage.sql.get<{ n: number }>(
      'SELECT count(*) AS n FROM password_change_failures WHERE user_id = ?',
      [ada.id],
    );
    expect(Number(counted?.n)).toBe(5);
  });
});

/**
 * What only Okta mode shows of the 2-step factors: what the org holds and what the portal asks of it. What both
 * backends do (enrolment, activation, step-up, on/off, removal, the last-factor rule, throttles, the refusals,
 * "Confirm it's you") is the contract suite's, run against this backend too: test/contract/{factors,step-up,
 * throttles,authorization-matrix}.test.ts.
 */
describe('2-step factors in Okta', () => {
  it("the authenticator app is Okta's Google Authenticator factor, with Okta's shared secret; the notice says it is on", async () => {
    const ada = await newAccount();
    const enrolled = await call('POST', apiPaths.multifactor('googleauth', ada.id, 'enroll'), ada.token);
    expect(enrolled.status).toBe(200);
    const { secret } = enrolled.body as { secret: string };
    expect(org().user(ada.id)?.factors).toMatchObject([
      {
        factorType: 'token:software:totp',
        provider: 'GOOGLE',
        status: 'PENDING_ACTIVATION',
        sharedSecret: secret,
      },
    ]);
    const before = mark();
    const activated = await call('POST', apiPaths.multifactor('googleauth', ada.id, 'activate'), ada.token, {
      code: totp(secret, -1),
    });
    expect(activated.status).toBe(200);
    expect(oktaCallsSince(before).filter((c) => c.startsWith('POST'))).toEqual(['POST activateFactor 200']);
    expect(await notices(ada.id)).toEqual(['Google Authenticator is now on for your F5 account']);
  });

  it("email is Okta's email factor, and Okta sends the codes; the portal's send limit holds Okta back", async () => {
    const ada = await newAccount();
    await setUpEmail(ada);
    expect(org().user(ada.id)?.factors).toMatchObject([
      { factorType: 'email', provider: 'OKTA', status: 'ACTIVE' },
    ]);

    const other = await anotherSession(ada);
    clock.advance(30_000);
    let before = mark();
    const sent = await call('POST', apiPaths.stepUpSendChallenge(ada.id, 'email'), other);
    expect(sent.status).toBe(200);
    expect(oktaCallsSince(before).filter((c) => c.startsWith('POST'))).toEqual(['POST verifyFactor 200']);
    expect(
      org()
        .emailCodes(ada.id)
        .filter((c) => c.purpose === 'verification' && c.usable),
    ).toHaveLength(1);
    // Within 30 s: the portal refuses before Okta is asked.
    before = mark();
    const again = await call('POST', apiPaths.stepUpSendChallenge(ada.id, 'email'), other);
    expect(again).toMatchObject({ status: 429, body: { code: 'rate_limited' } });
    expect(oktaCallsSince(before).filter((c) => c.startsWith('POST'))).toEqual([]);
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

  it('turning a factor off deletes its enrolment in Okta, and the notice says it was removed', async () => {
    const ada = await newAccount();
    await setUpAuthenticator(ada);
    clock.advance(30_000);
    await setUpEmail(ada);
    const before = mark();
    const off = await call('DELETE', apiPaths.multifactor('googleauth', ada.id, 'opt-out'), ada.token);
    expect(off.status).toBe(200);
    // Then, the change committed, the account's refresh tokens for the portal end at the org.
    expect(oktaCallsSince(before).filter((c) => !c.startsWith('GET'))).toEqual([
      'DELETE unenrollFactor 204',
      'DELETE revokeTokensForUserAndClient 204',
    ]);
    expect((await notices(ada.id)).slice(-1)).toEqual([
      'Google Authenticator was removed from your F5 account',
    ]);
  });
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
