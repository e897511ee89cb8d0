import { generateKeyPairSync } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import okta from '@okta/okta-sdk-nodejs';
import { Secret, TOTP } from 'otpauth';
import { API_ERRORS, PASSWORD_CHANGE_ERRORS } from 'shared-auth/contract';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parseEnv } from '../src/config/env.js';
import { HttpError } from '../src/http/errors.js';
import { OktaOrg, type OktaLog } from '../src/identity/okta/client.js';
import { OktaIdentity, passwordChangeRefusal } from '../src/identity/okta/identity.js';
import { oktaSettingsOf, type OktaCredentials } from '../src/config/okta.js';
import type { Activation, IdentityFactor } from '../src/identity/types.js';
import type { Storage } from '../src/storage/index.js';
import { startOktaOrg } from './support/okta-org/index.js';
import { useOktaOrg } from './support/okta-org/vitest.js';

/**
 * The Okta identity backend (src/identity/okta) against the Okta org stand-in (test/support/okta-org), which
 * checks every request and answer against Okta's published specification: useOktaOrg fails a test that left a
 * violation behind.
 */

const CLIENT_ID = '0oaportalidentity01';
const KEY_ID = 'portal-1';
const PASSWORD = 'Correct-Horse-1';
const FEDERATED_ATTRIBUTE = 'portalFederated';

const org = useOktaOrg({ customProfileAttributes: { [FEDERATED_ATTRIBUTE]: { type: 'boolean' } } });

interface LogLine {
  level: 'warn' | 'error';
  object: Record<string, unknown>;
  message: string;
}
let logged: LogLine[] = [];
const log: OktaLog = {
  warn: (object, message) =>
    logged.push({ level: 'warn', object: object as Record<string, unknown>, message }),
  error: (object, message) =>
    logged.push({ level: 'error', object: object as Record<string, unknown>, message }),
};

let credentials: OktaCredentials;
let identity: OktaIdentity;
let privatePem: string;

beforeAll(() => {
  const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  privatePem = pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const publicJwk = { ...pair.publicKey.export({ format: 'jwk' }), kid: KEY_ID, alg: 'RS256' };
  org().registerServiceApp({
    clientId: CLIENT_ID,
    publicJwk,
    scopes: ['okta.users.read', 'okta.users.manage'],
  });
  // The configuration path the server takes: the environment, checked, then the org.
  const settings = oktaSettingsOf(
    parseEnv({ OKTA_CLIENT_ID: CLIENT_ID, OKTA_PRIVATE_KEY: privatePem, OKTA_KEY_ID: KEY_ID }),
  );
  credentials = settings.credentials;
  identity = new OktaIdentity(newOrg(), { federatedAttribute: FEDERATED_ATTRIBUTE });
});

beforeEach(() => {
  logged = [];
});

function newOrg(overrides: Partial<ConstructorParameters<typeof OktaOrg>[0]> = {}): OktaOrg {
  return new OktaOrg({ orgUrl: org().url, credentials, log, ...overrides });
}

let userCount = 0;
function newUser(overrides: Partial<Parameters<ReturnType<typeof org>['addUser']>[0]> = {}) {
  userCount += 1;
  const login = `ada${userCount}@example.com`;
  return org().addUser({
    profile: {
      login,
      email: login,
      firstName: 'Ada',
      lastName: 'Lovelace',
      countryCode: 'GB',
      title: 'Countess',
    },
    password: PASSWORD,
    ...overrides,
  });
}

/** Okta's requests since `mark` (org().requests().length), as "METHOD operationId status". */
function callsSince(mark: number): string[] {
  return org()
    .requests()
    .slice(mark)
    .map((r) => `${r.method} ${r.operationId ?? r.path} ${r.status}`);
}

/** The refusal a promise ends with, as the error plugin would answer it. */
async function refusalOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    const e = error as HttpError;
    return { status: e.statusCode, code: e.code, message: e.message, headers: e.headers };
  }
  throw new Error('the call did not fail');
}

const totpNow = (secret: string, offsetSteps = 0) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offsetSteps * 30_000 });
/** A code that is certainly not valid now (nor one step around). */
const wrongTotp = (secret: string) => {
  const valid = new Set([-1, 0, 1].map((s) => totpNow(secret, s)));
  let code = '000000';
  for (let i = 0; valid.has(code); i += 1) code = String(i).padStart(6, '0');
  return code;
};
const otherCode = (code: string) => (code === '000000' ? '111111' : '000000');

/** The password check's hook for the caller's throttle: counted here, so a test sees it ran before Okta was asked. */
let counted = 0;
const count = async () => {
  counted += 1;
};

/** What an activation answered: false for a wrong code, otherwise the factor its commit answers (Okta: no storage). */
async function activated(promise: Promise<Activation | undefined>): Promise<IdentityFactor | false> {
  const activation = await promise;
  return activation ? activation.commit({} as Storage) : false;
}

describe('the service app', () => {
  it("takes a token with private_key_jwt for exactly the portal's two scopes, then calls the API with it as Bearer", async () => {
    const user = newUser();
    const fresh = new OktaIdentity(newOrg());
    const mark = org().requests().length;
    await fresh.findById(user.id);
    await fresh.listFactors(user.id);
    const calls = org().requests().slice(mark);
    expect(calls.map((c) => `${c.method} ${c.operationId} ${c.status} ${c.authorization ?? '-'}`)).toEqual([
      'POST token 200 -',
      'GET getUser 200 Bearer',
      'GET listFactors 200 Bearer',
    ]);
    expect(calls[0]?.body).toEqual({
      grant_type: 'client_credentials',
      scope: 'okta.users.read okta.users.manage',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: '(jwt)',
    });
  });

  it("a refused token request (SDK 8.1.0 hides it) fails the call with 502 and logs Okta's reason; no API call goes out with 'Bearer undefined'", async () => {
    const user = newUser();
    const ungranted = new OktaIdentity(
      newOrg({
        credentials: {
          ...(credentials as Extract<OktaCredentials, { kind: 'service-app' }>),
          scopes: ['okta.users.read', 'okta.users.manage', 'okta.groups.manage'],
        },
      }),
    );
    const mark = org().requests().length;
    expect(await refusalOf(ungranted.findById(user.id))).toMatchObject({
      status: 502,
      code: API_ERRORS.upstreamFailed.code,
      message: 'The identity service did not answer as expected. Try again in a moment.',
    });
    expect(callsSince(mark)).toEqual(['POST token 400']);
    expect(logged).toMatchObject([
      {
        level: 'error',
        object: { operation: 'getUser', status: 400, error: 'invalid_scope' },
        message: expect.stringContaining("Okta refused the service app's token request (invalid_scope)"),
      },
    ]);
  });

  it('a token without okta.users.manage: a write is refused by Okta (403 E0000006), answered 502 and logged as a missing grant', async () => {
    const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    org().registerServiceApp({
      clientId: '0oareadonly01',
      publicJwk: { ...pair.publicKey.export({ format: 'jwk' }), kid: 'ro-1', alg: 'RS256' },
      scopes: ['okta.users.read'],
    });
    const readOnly = new OktaIdentity(
      newOrg({
        credentials: {
          kind: 'service-app',
          clientId: '0oareadonly01',
          privateJwk: { ...pair.privateKey.export({ format: 'jwk' }), kid: 'ro-1', alg: 'RS256' },
          keyId: 'ro-1',
          scopes: ['okta.users.read'],
        },
      }),
    );
    const user = newUser();
    expect((await readOnly.findById(user.id))?.givenName).toBe('Ada');
    expect(await refusalOf(readOnly.updateProfile(user.id, { givenName: 'Augusta' }))).toMatchObject({
      status: 502,
      code: API_ERRORS.upstreamFailed.code,
    });
    expect(org().user(user.id)?.profile.firstName).toBe('Ada');
    expect(logged).toMatchObject([
      {
        level: 'error',
        object: { operation: 'updateUser', okta: { status: 403, errorCode: 'E0000006' } },
        message: expect.stringContaining('lack of permission'),
      },
    ]);
  });

  it('an org that cannot be reached: 502 with a text that names no internals, logged', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = new OktaIdentity(newOrg({ orgUrl: `http://127.0.0.1:${port}` }));
    expect(await refusalOf(unreachable.findById('00uanyone'))).toEqual({
      status: 502,
      code: API_ERRORS.upstreamFailed.code,
      message: 'The identity service could not be reached. Try again in a moment.',
      headers: {},
    });
    expect(logged).toMatchObject([
      { level: 'error', object: { operation: 'getUser' }, message: 'Okta could not be reached' },
    ]);
  });

  it('the API token fallback (SSWS) works the same', async () => {
    const local = await startOktaOrg({ apiToken: '00-portal-api-token' });
    try {
      const user = local.addUser({
        profile: { login: 'sam@example.com', email: 'sam@example.com', firstName: 'Sam', lastName: 'Smith' },
        password: PASSWORD,
      });
      const viaToken = new OktaIdentity(
        new OktaOrg({
          orgUrl: local.url,
          credentials: oktaSettingsOf(parseEnv({ OKTA_API_TOKEN: '00-portal-api-token' })).credentials,
          log,
        }),
      );
      expect(await viaToken.updateProfile(user.id, { familyName: 'Jones' })).toMatchObject({
        givenName: 'Sam',
        familyName: 'Jones',
      });
      expect(local.requests().map((r) => `${r.method} ${r.operationId} ${r.authorization}`)).toEqual([
        'POST updateUser SSWS',
      ]);
      expect(local.violations()).toEqual([]);
    } finally {
      await local.close();
    }
  });
});

describe('the account', () => {
  it('findById maps the Okta user to the portal user; unknown → undefined', async () => {
    const user = newUser();
    const found = await identity.findById(user.id);
    expect(found).toEqual({
      id: user.id,
      email: user.profile.email,
      givenName: 'Ada',
      familyName: 'Lovelace',
      country: 'GB',
      isFederated: false,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(await identity.findById('00unobody')).toBeUndefined();
  });

  it('isFederated: credentials.provider.type FEDERATION or SOCIAL, or the configured boolean profile attribute', async () => {
    const federation = newUser({ password: undefined, provider: { type: 'FEDERATION', name: 'FEDERATION' } });
    const social = newUser({ password: undefined, provider: { type: 'SOCIAL', name: '0oasocial' } });
    const marked = org().addUser({
      profile: { login: 'marked@example.com', email: 'marked@example.com', [FEDERATED_ATTRIBUTE]: true },
      password: PASSWORD,
    });
    expect((await identity.findById(federation.id))?.isFederated).toBe(true);
    expect((await identity.findById(social.id))?.isFederated).toBe(true);
    expect((await identity.findById(marked.id))?.isFederated).toBe(true);
    // Without the setting the attribute means nothing.
    expect((await new OktaIdentity(newOrg()).findById(marked.id))?.isFederated).toBe(false);
  });

  it('updateProfile is a partial POST: only the changed attributes are sent, the others stay, and no PUT is made', async () => {
    const user = newUser();
    const mark = org().requests().length;
    const updated = await identity.updateProfile(user.id, { givenName: 'Augusta', country: 'FR' });
    expect(updated).toMatchObject({ givenName: 'Augusta', familyName: 'Lovelace', country: 'FR' });
    expect(org().user(user.id)?.profile).toEqual({
      ...user.profile,
      firstName: 'Augusta',
      countryCode: 'FR',
    });
    const writes = org()
      .requests()
      .slice(mark)
      .filter((r) => r.operationId !== 'token');
    expect(writes.map((r) => `${r.method} ${r.operationId}`)).toEqual(['POST updateUser']);
    expect(writes[0]?.body).toEqual({ profile: { firstName: 'Augusta', countryCode: 'FR' } });
    expect(
      org()
        .requests()
        .some((r) => r.method === 'PUT'),
    ).toBe(false);

    expect(await identity.updateProfile('00unobody', { givenName: 'X' })).toBeUndefined();
  });

  it('reads are not cached: a change made by another instance (or in Okta) is seen at once', async () => {
    const user = newUser();
    expect((await identity.findById(user.id))?.givenName).toBe('Ada');
    await new OktaIdentity(newOrg()).updateProfile(user.id, { givenName: 'Augusta' });
    expect((await identity.findById(user.id))?.givenName).toBe('Augusta');
  });

  it('endSessions revokes the Okta sessions and OAuth tokens of the user', async () => {
    const user = newUser();
    await identity.endSessions(user.id);
    expect(org().user(user.id)?.sessionRevocations).toMatchObject([
      { via: 'revokeUserSessions', oauthTokens: true },
    ]);
  });
});

describe('the password', () => {
  it('the right old password: Okta holds the new one and refuses the old one', async () => {
    const user = newUser();
    counted = 0;
    const change = await identity.changePassword(user.id, PASSWORD, 'Brand-New-Pass-2', count);
    expect(change).toMatchObject({ matches: true });
    expect(counted).toBe(1);
    expect(org().passwordMatches(user.id, 'Brand-New-Pass-2')).toBe(true);
    expect(org().passwordMatches(user.id, PASSWORD)).toBe(false);
    // The old password no longer changes it either.
    expect(await identity.changePassword(user.id, PASSWORD, 'Third-Pass-333', count)).toEqual({
      matches: false,
    });
  });

  it('a wrong old password (403 E0000014) is a mismatch (the caller answers it and keeps it counted)', async () => {
    const user = newUser();
    counted = 0;
    expect(await identity.changePassword(user.id, 'Not-The-Password-1', 'Brand-New-Pass-2', count)).toEqual({
      matches: false,
    });
    expect(counted).toBe(1);
    expect(org().passwordMatches(user.id, PASSWORD)).toBe(true);
  });

  it("the attempt is counted before Okta is asked: a count refused (the throttle's 429) sends nothing", async () => {
    const user = newUser();
    const mark = org().requests().length;
    const throttled = new HttpError(429, 'Too many wrong current passwords.');
    await expect(
      identity.changePassword(user.id, PASSWORD, 'Brand-New-Pass-2', () => Promise.reject(throttled)),
    ).rejects.toBe(throttled);
    expect(callsSince(mark)).toEqual([]);
  });

  it('no password check without a change: "Confirm it\'s you" is refused as no_local_password, nothing counted', async () => {
    counted = 0;
    expect(await refusalOf(identity.verifyPassword(newUser().id, PASSWORD, count))).toMatchObject({
      status: 409,
      code: API_ERRORS.noLocalPassword.code,
    });
    expect(counted).toBe(0);
  });

  it("the org's policy (400 E0000001) is the policy refusal with the org's requirements text, for the page's dialog", async () => {
    const user = newUser();
    for (const candidate of ['no-digits-Here', PASSWORD]) {
      expect(await refusalOf(identity.changePassword(user.id, PASSWORD, candidate, count))).toEqual({
        status: 400,
        code: API_ERRORS.passwordPolicy.code,
        message:
          'Password requirements were not met. Password requirements: at least 8 characters, a lowercase letter, an uppercase letter, a number, no parts of your username. Your password cannot be any of your last 4 password(s).',
        headers: {},
      });
    }
    expect(org().passwordMatches(user.id, PASSWORD)).toBe(true);
  });

  it('a federated user (403 E0000035) and an unknown one', async () => {
    const federated = newUser({ password: undefined, provider: { type: 'FEDERATION', name: 'FEDERATION' } });
    expect(
      await refusalOf(identity.changePassword(federated.id, 'x', 'Brand-New-Pass-2', count)),
    ).toMatchObject({
      status: 403,
      code: API_ERRORS.federatedUser.code,
      message: PASSWORD_CHANGE_ERRORS.federated,
    });
    expect(
      await refusalOf(identity.changePassword('00unobody', PASSWORD, 'Brand-New-Pass-2', count)),
    ).toMatchObject({ status: 404, code: API_ERRORS.notFound.code });
  });

  it('the other answers Okta has documented for a password change map too (E0000014 with a new-password cause, E0000080)', () => {
    const headers = new Headers();
    const answer = (status: number, errorCode: string, summary: string, cause: string) =>
      passwordChangeRefusal(
        new okta.OktaApiError(
          'https://org.example/api',
          status,
          {
            errorCode,
            errorSummary: summary,
            errorCauses: [{ errorSummary: cause }],
          },
          headers as never,
        ),
      );
    expect(
      answer(
        403,
        'E0000014',
        'Update of credentials failed',
        'password: Password has been used too recently',
      ),
    ).toMatchObject({
      statusCode: 400,
      code: 'password_policy',
      message: 'Password has been used too recently',
    });
    expect(
      answer(
        403,
        'E0000080',
        'The password does meet the complexity requirements of the current password policy.',
        'Passwords must have at least 8 characters, a lowercase letter, an uppercase letter, a number, no parts of your username',
      ),
    ).toMatchObject({
      statusCode: 400,
      code: 'password_policy',
      message:
        'Passwords must have at least 8 characters, a lowercase letter, an uppercase letter, a number, no parts of your username',
    });
    expect(answer(500, 'E0000009', 'Internal Server Error', '')).toBeUndefined();
  });
});

describe('the authenticator app (Google Authenticator)', () => {
  it("enrol with Okta's shared secret, activate with a computed code, verify (a code works once), remove", async () => {
    const user = newUser();
    const { secret, qrLink } = await identity.enrollAuthenticator((await identity.findById(user.id))!);
    expect(org().user(user.id)?.factors).toMatchObject([
      { status: 'PENDING_ACTIVATION', sharedSecret: secret },
    ]);
    const uri = new URL(qrLink);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.searchParams.get('secret')).toBe(secret);
    expect(uri.searchParams.get('period')).toBe('30');
    expect(await identity.listFactors(user.id)).toEqual([
      { type: 'googleAuth', status: 'PENDING_ACTIVATION', enrolledAt: null },
    ]);
    await expect(identity.verify(user.id, 'googleAuth', totpNow(secret))).rejects.toMatchObject({
      statusCode: 409,
      code: API_ERRORS.factorState.code,
    });

    expect(await activated(identity.activate(user.id, 'googleAuth', wrongTotp(secret)))).toBe(false);
    const code = totpNow(secret);
    expect(await activated(identity.activate(user.id, 'googleAuth', code))).toMatchObject({
      status: 'ACTIVE',
    });
    expect(await identity.listFactors(user.id)).toEqual([
      { type: 'googleAuth', status: 'ACTIVE', enrolledAt: expect.stringMatching(/^\d{4}-/) },
    ]);

    // The activation used this step's code: Okta refuses it again (E0000082); the next step's code works.
    expect(await identity.verify(user.id, 'googleAuth', code)).toBe(false);
    expect(await identity.verify(user.id, 'googleAuth', totpNow(secret, 1))).toBe(true);
    expect(await identity.verify(user.id, 'googleAuth', wrongTotp(secret))).toBe(false);
    expect(await identity.verify(user.id, 'googleAuth', 'not a code')).toBe(false);

    expect(await refusalOf(identity.enrollAuthenticator((await identity.findById(user.id))!))).toMatchObject({
      status: 409,
      code: API_ERRORS.factorState.code,
      message: 'Google Authenticator is already set up; remove it first to set it up again',
    });

    await identity.remove(user.id, 'googleAuth');
    expect(org().user(user.id)?.factors).toEqual([]);
    expect(await identity.listFactors(user.id)).toEqual([]);
    await identity.remove(user.id, 'googleAuth'); // nothing to remove: fine
  });

  it('a second enrolment while one is pending replaces it: the old one is deleted, the new secret is the one Okta checks', async () => {
    const user = (await identity.findById(newUser().id))!;
    const first = await identity.enrollAuthenticator(user);
    const mark = org().requests().length;
    const second = await identity.enrollAuthenticator(user);
    expect(second.secret).not.toBe(first.secret);
    expect(callsSince(mark)).toEqual([
      'GET listFactors 200',
      'DELETE unenrollFactor 204',
      'POST enrollFactor 200',
    ]);
    expect(org().user(user.id)?.factors).toMatchObject([{ sharedSecret: second.secret }]);
    expect(await activated(identity.activate(user.id, 'googleAuth', totpNow(second.secret)))).toMatchObject({
      status: 'ACTIVE',
    });
  });

  it('activating with nothing pending is refused (factor_state)', async () => {
    const user = newUser();
    expect(await refusalOf(identity.activate(user.id, 'googleAuth', '123456'))).toMatchObject({
      status: 409,
      code: API_ERRORS.factorState.code,
      message: 'Start setting up Google Authenticator first',
    });
  });
});

describe('email verification', () => {
  it('enrol (Okta sends the code), activate with it, step-up: send a code and verify it, remove', async () => {
    const user = (await identity.findById(newUser().id))!;
    await identity.enrollEmail(user);
    const [pending] = await identity.listFactors(user.id);
    expect(pending).toMatchObject({ type: 'email', status: 'PENDING_ACTIVATION', enrolledAt: null });
    const activation = org().lastEmailCode(user.id);
    expect(org().emailCodes(user.id)).toMatchObject([{ purpose: 'activation', email: user.email }]);

    expect(await activated(identity.activate(user.id, 'email', otherCode(activation)))).toBe(false);
    expect(await activated(identity.activate(user.id, 'email', activation))).toMatchObject({
      status: 'ACTIVE',
    });
    expect(await identity.listFactors(user.id)).toMatchObject([{ type: 'email', status: 'ACTIVE' }]);

    await identity.sendVerificationEmail(user);
    const sent = org()
      .emailCodes(user.id)
      .filter((c) => c.purpose === 'verification');
    expect(sent).toHaveLength(1);
    const code = sent[0]!.code;
    expect(await identity.verify(user.id, 'email', otherCode(code))).toBe(false);
    expect(await identity.verify(user.id, 'email', code)).toBe(true);
    expect(await identity.verify(user.id, 'email', code)).toBe(false); // used once

    expect(await refusalOf(identity.enrollEmail(user))).toMatchObject({
      status: 409,
      code: API_ERRORS.factorState.code,
    });
    await identity.remove(user.id, 'email');
    expect(org().user(user.id)?.factors).toEqual([]);
    expect(await refusalOf(identity.sendVerificationEmail(user))).toMatchObject({
      status: 409,
      code: API_ERRORS.factorState.code,
      message: 'Email verification is not set up',
    });
  });

  it('enrolling again while pending asks Okta to resend: a new code, the first no longer works', async () => {
    const user = (await identity.findById(newUser().id))!;
    await identity.enrollEmail(user);
    const first = org().lastEmailCode(user.id);
    const mark = org().requests().length;
    await identity.enrollEmail(user);
    expect(callsSince(mark)).toEqual(['GET listFactors 200', 'POST resendEnrollFactor 200']);
    const second = org().lastEmailCode(user.id);
    if (second !== first) expect(await activated(identity.activate(user.id, 'email', first))).toBe(false);
    expect(await activated(identity.activate(user.id, 'email', second))).toMatchObject({ status: 'ACTIVE' });
  });
});

describe("Okta's rate limits", () => {
  it('a GET answered 429 is retried after X-Rate-Limit-Reset and succeeds', async () => {
    const user = newUser();
    org().armRateLimit({ path: '/api/v1/users/{id}', method: 'GET', count: 1, resetInSeconds: 1 });
    const mark = org().requests().length;
    expect((await identity.findById(user.id))?.givenName).toBe('Ada');
    expect(callsSince(mark)).toEqual(['GET getUser 429', 'GET getUser 200']);
    expect(logged).toEqual([]);
  });

  it('a GET whose reset is beyond the wait budget is not held: 503 with Retry-After at once', async () => {
    const user = newUser();
    org().armRateLimit({ path: '/api/v1/users/{id}', method: 'GET', count: 1, resetInSeconds: 30 });
    const mark = org().requests().length;
    const refused = await refusalOf(identity.findById(user.id));
    expect(refused).toMatchObject({ status: 503, code: API_ERRORS.serviceUnavailable.code });
    expect(Number(refused.headers['Retry-After'])).toBeGreaterThanOrEqual(29);
    expect(Number(refused.headers['Retry-After'])).toBeLessThanOrEqual(31);
    expect(callsSince(mark)).toEqual(['GET getUser 429']);
  });

  it("the token endpoint's 429: a read waits and takes a token with a new assertion; a write answers 503", async () => {
    const user = newUser();
    org().armRateLimit({ path: '/oauth2/v1/token', count: 1, resetInSeconds: 1 });
    let mark = org().requests().length;
    expect((await new OktaIdentity(newOrg()).findById(user.id))?.givenName).toBe('Ada');
    expect(callsSince(mark)).toEqual(['POST token 429', 'POST token 200', 'GET getUser 200']);

    org().armRateLimit({ path: '/oauth2/v1/token', count: 1, resetInSeconds: 1 });
    mark = org().requests().length;
    expect(
      await refusalOf(
        new OktaIdentity(newOrg()).changePassword(user.id, PASSWORD, 'Brand-New-Pass-2', count),
      ),
    ).toMatchObject({ status: 503, headers: { 'Retry-After': expect.stringMatching(/^[12]$/) } });
    expect(callsSince(mark)).toEqual(['POST token 429']);
  });

  it('a write answered 429 is not repeated: 503 with Retry-After from X-Rate-Limit-Reset, nothing changed', async () => {
    const user = newUser();
    org().armRateLimit({
      path: '/api/v1/users/{userId}/credentials/change_password',
      count: 1,
      resetInSeconds: 2,
    });
    const mark = org().requests().length;
    const refused = await refusalOf(identity.changePassword(user.id, PASSWORD, 'Brand-New-Pass-2', count));
    expect(refused).toMatchObject({
      status: 503,
      code: API_ERRORS.serviceUnavailable.code,
      headers: { 'Retry-After': expect.stringMatching(/^[123]$/) },
    });
    expect(callsSince(mark)).toEqual(['POST changePassword 429']);
    expect(org().passwordMatches(user.id, PASSWORD)).toBe(true);
    expect(logged).toMatchObject([{ level: 'warn', object: { operation: 'changePassword' } }]);
  });
});
