/**
 * Passkeys in Okta mode (issue 21), against the Okta org stand-in: the holder's passkeys are the org's `webauthn`
 * factors, added with the ceremony on the portal's pages when OKTA_PASSKEY_RP_ID covers its host (the stand-in
 * verifying the attestation and the assertions for real), else through Okta's hosted enrolment. Each check written as
 * a test: the step-up or fresh sign-in before adding, a replayed answer, a wrong origin (refused by Okta), a challenge
 * of another session, the last-method rule, the step-up with a passkey (its grant, a replay, a wrong credential, the
 * wrong-code throttle), rename refused, and the authorization matrix over every passkey call.
 */
import { randomBytes } from 'node:crypto';
import { apiCalls, apiPaths, PASSKEYS_MAX, pathOf } from 'shared-auth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PASSKEY_ANSWER_ERROR,
  PASSKEY_CHALLENGE_ERROR,
  PASSKEY_HOSTED_ENROLMENT_ERROR,
  PASSKEY_ORG_REFUSED_ERROR,
  PASSKEY_ORG_RP_MISMATCH_ERROR,
  PASSKEYS_MAX_ERROR,
  PASSKEY_RENAME_UNAVAILABLE_ERROR,
  PASSKEY_SIGN_IN_AGAIN_ERROR,
  PASSKEY_STEP_UP_UNAVAILABLE_ERROR,
  PASSKEY_UNKNOWN_ERROR,
} from '../src/passkeys/texts.js';
import type { TestApp } from './helpers.js';
import { inject } from './contract/inject.js';
import { startOktaOrg } from './support/okta-org/index.js';
import { useOktaOrg } from './support/okta-org/vitest.js';
import {
  newOrgAccount,
  oktaAuthorizationServer,
  startOktaPortal,
  type OrgAccount,
  passwordUnlike,
} from './support/okta-portal.js';
import { SoftwareAuthenticator } from './support/software-authenticator.js';

/** The portal's origin in tests (PUBLIC_URL's default) and the RP ID that covers it. */
const ORIGIN = 'http://localhost:3000';
const RP_ID = 'localhost';

const server = oktaAuthorizationServer();
const org = useOktaOrg({ jwks: server.jwks, webauthnRpId: RP_ID, webauthnOrigins: [ORIGIN] });
/** The ceremony on the portal's pages (OKTA_PASSKEY_RP_ID set). */
let t: TestApp;
/** Okta's hosted enrolment (OKTA_PASSKEY_RP_ID unset), with the scope that reads the org's authenticators. */
let hosted: TestApp;

beforeAll(async () => {
  [t, hosted] = await Promise.all([
    startOktaPortal(org(), { OKTA_PASSKEY_RP_ID: RP_ID }),
    startOktaPortal(org(), { OKTA_SCOPES: 'okta.users.read okta.users.manage okta.authenticators.read' }),
  ]);
});

afterAll(async () => {
  await Promise.all([t?.close(), hosted?.close()]);
});

const paths = {
  list: (sub: string) => pathOf(apiCalls.passkeys.path, { sub }),
  regOptions: (sub: string) => pathOf(apiCalls.passkeyRegistrationOptions.path, { sub }),
  regVerify: (sub: string) => pathOf(apiCalls.passkeyRegistrationVerify.path, { sub }),
  rename: (sub: string, id: string) => pathOf(apiCalls.passkeyRename.path, { sub, id }),
  remove: (sub: string, id: string) => pathOf(apiCalls.passkeyRemove.path, { sub, id }),
  stepUpOptions: (sub: string) => pathOf(apiCalls.stepUpPasskeyOptions.path, { sub }),
  stepUpVerify: (sub: string) => pathOf(apiCalls.stepUpVerifyPasskey.path, { sub }),
  challenge: (sub: string) => pathOf(apiCalls.stepUpChallenge.path, { sub }),
};

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** One sign-in session at Okta: its `sid` (the step-up grant's key) and its current access token. */
interface Session {
  account: OrgAccount;
  sid: string;
  token: string;
}

/** A sign-in at `at` (default: the test org) `signedInAgo` seconds ago, its token issued `issuedAgo` seconds ago. */
async function signIn(
  account: OrgAccount,
  { signedInAgo = 0, issuedAgo = 0, at = org() } = {},
): Promise<Session> {
  const sid = `102${randomBytes(8).toString('hex')}`;
  const token = await server.token(
    at,
    { id: account.id, login: account.login },
    { sid, auth_time: nowSeconds() - signedInAgo, iat: nowSeconds() - issuedAgo },
  );
  return { account, sid, token };
}

const newAccount = () => newOrgAccount(org(), 'Ines', 'Ortega', 'ES');

/** A change ends the account's tokens issued up to the second it was made: the next sign-in is a second later. */
const nextSecond = () => new Promise((resolve) => setTimeout(resolve, 1100));

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
const call = (method: Method, url: string, session: Session | string | undefined, body?: unknown, app = t) =>
  inject(app.app, method, url, typeof session === 'object' ? session.token : session, body);

type Options = { challenge: string } & Record<string, unknown>;

async function registrationOptions(session: Session, app = t): Promise<Options> {
  const answer = await call('POST', paths.regOptions(session.account.id), session, {}, app);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { options: Options }).options;
}

/** Adds a passkey of `authenticator` for the session (which must be allowed to). */
async function register(session: Session, authenticator: SoftwareAuthenticator) {
  const options = await registrationOptions(session);
  const answer = await call('POST', paths.regVerify(session.account.id), session, {
    response: authenticator.register(options),
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body as { id: string; name: string; createdAt: string; lastUsedAt: null; synced: boolean };
}

/** A fresh account whose first 2-step method is a passkey added in a fresh sign-in. */
async function withPasskey() {
  const account = newAccount();
  const session = await signIn(account);
  const authenticator = new SoftwareAuthenticator();
  const passkey = await register(session, authenticator);
  return { account, session, authenticator, passkey };
}

const webauthnFactors = (account: OrgAccount) =>
  (org().user(account.id)?.factors ?? []).filter((f) => f.factorType === 'webauthn');

async function stepUpOptions(session: Session): Promise<Options> {
  const answer = await call('POST', paths.stepUpOptions(session.account.id), session, {});
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { options: Options }).options;
}

const stepUpVerify = (session: Session, response: unknown) =>
  call('POST', paths.stepUpVerify(session.account.id), session, { response });

describe('the list', () => {
  it('answers the org’s passkeys, available, not renamable, with the ceremony when OKTA_PASSKEY_RP_ID is set', async () => {
    const session = await signIn(newAccount());
    const empty = await call('GET', paths.list(session.account.id), session);
    expect(empty).toMatchObject({
      status: 200,
      body: { available: true, canRename: false, enrolment: 'ceremony', passkeys: [] },
    });
    expect(empty.body).not.toHaveProperty('hostedEnrolmentUrl');
  });

  it("sends the holder to Okta's hosted enrolment when OKTA_PASSKEY_RP_ID is unset, and back to the Security page", async () => {
    const session = await signIn(newAccount());
    const answer = await call('GET', paths.list(session.account.id), session, undefined, hosted);
    const url = `${org().url}/idp/bootstrap/enroll-authenticator/${org().webauthnAuthenticatorId}?redirect_uri=${encodeURIComponent(`${ORIGIN}/security`)}`;
    expect(answer).toMatchObject({
      status: 200,
      body: { available: true, canRename: false, enrolment: 'hosted', hostedEnrolmentUrl: url, passkeys: [] },
    });
    const page = await fetch(url, { redirect: 'manual' });
    expect(page.status).toBe(302);
    expect(page.headers.get('location')).toBe(`${ORIGIN}/security`);
    expect(org().hostedEnrolments().at(-1)).toEqual({
      authenticatorId: org().webauthnAuthenticatorId,
      redirectUri: `${ORIGIN}/security`,
    });
    // The ceremony is not offered there: adding is the hosted page's.
    expect(await call('POST', paths.regOptions(session.account.id), session, {}, hosted)).toMatchObject({
      status: 409,
      body: { code: 'passkeys_unavailable', error: PASSKEY_HOSTED_ENROLMENT_ERROR },
    });
  });

  it("falls back to Okta's settings page when the service app may not read the org's authenticators", async () => {
    const plain = await startOktaPortal(org());
    try {
      const session = await signIn(newAccount());
      const answer = await call('GET', paths.list(session.account.id), session, undefined, plain);
      expect(answer).toMatchObject({
        status: 200,
        body: { enrolment: 'hosted', hostedEnrolmentUrl: `${org().url}/enduser/settings` },
      });
    } finally {
      await plain.close();
    }
  });
});

describe('adding a passkey (the ceremony on the portal’s pages)', () => {
  it('adds one: Okta’s options for the portal’s RP ID, the answer activated by Okta, listed, the other sessions ended', async () => {
    const account = newAccount();
    // Signed in a minute earlier: its token predates the change below.
    const other = await signIn(account, { signedInAgo: 60, issuedAgo: 60 });
    const session = await signIn(account);
    const options = await registrationOptions(session);
    const [pending] = webauthnFactors(account);
    expect(pending).toMatchObject({ status: 'PENDING_ACTIVATION' });
    expect(options).toMatchObject({
      rp: { id: RP_ID },
      user: { id: account.id, name: account.login },
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
      excludeCredentials: [],
    });
    const authenticator = new SoftwareAuthenticator();
    const answer = authenticator.register(options);
    const added = await call('POST', paths.regVerify(account.id), session, { response: answer });
    expect(added).toMatchObject({
      status: 200,
      body: { id: pending?.id, name: 'Unknown authenticator', lastUsedAt: null, synced: false },
    });
    expect(webauthnFactors(account)).toMatchObject([
      { id: pending?.id, status: 'ACTIVE', profile: { credentialId: authenticator.id } },
    ]);
    // Okta's schema: standard base64 (its examples), not WebAuthn's base64url.
    const activation = org()
      .requests()
      .find((r) => r.operationId === 'activateFactor' && r.path.includes(String(pending?.id)));
    const response = answer.response as { attestationObject: string; clientDataJSON: string };
    expect(activation?.body).toEqual({
      attestation: Buffer.from(response.attestationObject, 'base64url').toString('base64'),
      clientData: Buffer.from(response.clientDataJSON, 'base64url').toString('base64'),
    });
    expect((await call('GET', paths.list(account.id), session)).body).toMatchObject({
      passkeys: [{ id: pending?.id, name: 'Unknown authenticator' }],
    });
    // The new passkey proved it is the holder: this session has a grant; it is a step-up method now.
    expect((await call('GET', paths.challenge(account.id), session)).body).toMatchObject({
      challengeUser: false,
      activeFactorsData: { passkey: { count: 1 } },
    });
    // A 2-step change ends the account's other sessions.
    expect(await call('GET', paths.list(account.id), other)).toMatchObject({ status: 401 });
  });

  it('deletes an earlier pending enrolment before starting another', async () => {
    const session = await signIn(newAccount());
    await registrationOptions(session);
    await registrationOptions(session);
    expect(webauthnFactors(session.account).map((f) => f.status)).toEqual(['PENDING_ACTIVATION']);
  });

  it('needs a fresh sign-in for a first 2-step method, and the step-up once a passkey is on', async () => {
    const stale = await signIn(newAccount(), { signedInAgo: 600 });
    expect(await call('POST', paths.regOptions(stale.account.id), stale, {})).toMatchObject({
      status: 403,
      body: { code: 'reauthentication_required', proof: 'sign-in' },
    });
    expect(webauthnFactors(stale.account)).toEqual([]);

    const { account } = await withPasskey();
    await nextSecond();
    const fresh = await signIn(account);
    for (const [url, body] of [
      [paths.regOptions(account.id), {}],
      [paths.regVerify(account.id), { response: { id: 'x' } }],
    ] as const) {
      expect(await call('POST', url, fresh, body)).toMatchObject({
        status: 403,
        body: { code: 'step_up_required' },
      });
    }
    expect(webauthnFactors(account)).toHaveLength(1);
  });

  it('refuses a replayed answer: the challenge is used once', async () => {
    const account = newAccount();
    const session = await signIn(account);
    const options = await registrationOptions(session);
    const answer = new SoftwareAuthenticator().register(options);
    expect((await call('POST', paths.regVerify(account.id), session, { response: answer })).status).toBe(200);
    expect(await call('POST', paths.regVerify(account.id), session, { response: answer })).toMatchObject({
      status: 400,
      body: { code: 'passkey_refused', error: PASSKEY_CHALLENGE_ERROR },
    });
    expect(webauthnFactors(account)).toHaveLength(1);
  });

  it('refuses an answer made for another origin (Okta refuses it): passkey_refused, nothing added', async () => {
    const account = newAccount();
    const session = await signIn(account);
    const options = await registrationOptions(session);
    const answer = new SoftwareAuthenticator().register(options, { origin: 'https://evil.example' });
    expect(await call('POST', paths.regVerify(account.id), session, { response: answer })).toMatchObject({
      status: 400,
      body: { code: 'passkey_refused', error: PASSKEY_ANSWER_ERROR },
    });
    expect(webauthnFactors(account).map((f) => f.status)).toEqual(['PENDING_ACTIVATION']);
    expect((await call('GET', paths.list(account.id), session)).body).toMatchObject({ passkeys: [] });
  });

  it('refuses a challenge issued to another session of the same account, before Okta sees it', async () => {
    const account = newAccount();
    const mine = await signIn(account);
    const theirs = await signIn(account);
    const options = await registrationOptions(theirs);
    const before = org().requests().length;
    const answer = new SoftwareAuthenticator().register(options);
    expect(await call('POST', paths.regVerify(account.id), mine, { response: answer })).toMatchObject({
      status: 400,
      body: { code: 'passkey_refused', error: PASSKEY_CHALLENGE_ERROR },
    });
    expect(
      org()
        .requests()
        .slice(before)
        .filter((r) => r.operationId === 'activateFactor'),
    ).toEqual([]);
  });
});

describe('what the org refuses, and bad input', () => {
  it("refuses when the org's passkey RP ID is not OKTA_PASSKEY_RP_ID, and deletes the enrolment it just made", async () => {
    const elsewhere = await startOktaOrg({ jwks: server.jwks, webauthnRpId: 'id.example.com' });
    const portal = await startOktaPortal(elsewhere, { OKTA_PASSKEY_RP_ID: RP_ID });
    try {
      const account = newOrgAccount(elsewhere, 'Noor', 'Haddad', 'JO');
      const session = await signIn(account, { at: elsewhere });
      const answer = await inject(portal.app, 'POST', paths.regOptions(account.id), session.token, {});
      expect(answer).toMatchObject({
        status: 409,
        body: { code: 'passkeys_unavailable', error: PASSKEY_ORG_RP_MISMATCH_ERROR },
      });
      expect(elsewhere.user(account.id)?.factors).toEqual([]);
      expect(elsewhere.takeViolations()).toEqual([]);
    } finally {
      await portal.close();
      await elsewhere.close();
    }
  });

  it('refuses with a clear text when the org does not let the holder enrol a passkey', async () => {
    const closed = await startOktaOrg({ jwks: server.jwks, webauthnRpId: RP_ID, webauthnEnrolment: false });
    const portal = await startOktaPortal(closed, { OKTA_PASSKEY_RP_ID: RP_ID });
    try {
      const account = newOrgAccount(closed, 'Noor', 'Haddad', 'JO');
      const session = await signIn(account, { at: closed });
      expect(await inject(portal.app, 'POST', paths.regOptions(account.id), session.token, {})).toMatchObject(
        {
          status: 409,
          body: { code: 'passkeys_unavailable', error: PASSKEY_ORG_REFUSED_ERROR },
        },
      );
      expect(closed.takeViolations()).toEqual([]);
    } finally {
      await portal.close();
      await closed.close();
    }
  });

  it(`refuses an eleventh passkey (${PASSKEYS_MAX} at most)`, async () => {
    const { account, session } = await withPasskey();
    for (let i = 1; i < PASSKEYS_MAX; i += 1) await register(session, new SoftwareAuthenticator());
    expect(await call('POST', paths.regOptions(account.id), session, {})).toMatchObject({
      status: 409,
      body: { code: 'factor_state', error: PASSKEYS_MAX_ERROR(PASSKEYS_MAX) },
    });
    expect(webauthnFactors(account)).toHaveLength(PASSKEYS_MAX);
  });

  it('answers bad answers with 400 passkey_refused, never a 500, and calls Okta with none of them', async () => {
    const { account, session } = await withPasskey();
    await registrationOptions(session);
    const bodies: unknown[] = [
      { response: { id: 'abc' } },
      { response: { id: 'abc', response: { clientDataJSON: 42 } } },
      { response: { id: 'abc', response: { clientDataJSON: 'bm90IGpzb24' } } },
      { response: { id: 'abc', response: 'x' } },
    ];
    const before = org().requests().length;
    for (const body of bodies) {
      for (const url of [paths.regVerify(account.id), paths.stepUpVerify(account.id)]) {
        const answer = await call('POST', url, session, body);
        expect(answer.status, `${url} ${JSON.stringify(body)}`).toBe(400);
        expect(answer.body, url).toMatchObject({ code: 'passkey_refused' });
      }
    }
    // Only the list reads of the org: no activation, no verification.
    expect(
      org()
        .requests()
        .slice(before)
        .filter((r) => r.method !== 'GET'),
    ).toEqual([]);
  });
});

describe('rename and removal', () => {
  it('refuses rename: Okta names passkeys itself', async () => {
    const { session, passkey } = await withPasskey();
    expect(
      await call('PUT', paths.rename(session.account.id, passkey.id), session, { name: 'Laptop' }),
    ).toMatchObject({
      status: 409,
      body: { code: 'passkeys_unavailable', error: PASSKEY_RENAME_UNAVAILABLE_ERROR },
    });
  });

  it('removes one while another method remains, refuses the last (409 last_factor), and another account’s (404)', async () => {
    const { account, session, passkey } = await withPasskey();
    const second = await register(session, new SoftwareAuthenticator());
    const removed = await call('DELETE', paths.remove(account.id, passkey.id), session, {});
    expect(removed).toMatchObject({ status: 200, body: { passkeys: [{ id: second.id }] } });
    expect(webauthnFactors(account).map((f) => f.id)).toEqual([second.id]);
    expect(await call('DELETE', paths.remove(account.id, second.id), session, {})).toMatchObject({
      status: 409,
      body: { code: 'last_factor' },
    });
    expect(webauthnFactors(account)).toHaveLength(1);
    const { account: mallory, session: malloryS } = await withPasskey();
    expect(await call('DELETE', paths.remove(mallory.id, second.id), malloryS, {})).toMatchObject({
      status: 404,
      body: { code: 'not_found' },
    });
    expect(webauthnFactors(account)).toHaveLength(1);
  });

  it('counts an Okta passkey for the last-method rule: email may go while a passkey remains', async () => {
    const { account, session, authenticator } = await withPasskey();
    // Email as a second method, under a step-up with the passkey.
    const verified = await stepUpVerify(session, authenticator.assert(await stepUpOptions(session)));
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    const email = (action: 'enroll' | 'activate' | 'reset', body: unknown) =>
      call(
        action === 'reset' ? 'DELETE' : 'POST',
        apiPaths.multifactor('email', account.id, action),
        session,
        body,
      );
    expect((await email('enroll', {})).status).toBe(200);
    expect(await email('activate', { code: org().lastEmailCode(account.id) })).toMatchObject({
      status: 200,
      body: { status: 'ACTIVE' },
    });
    // Email is the only factor, but not the only method: it may go (before, 409 last_factor).
    const removed = await email('reset', { optOut: true });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    expect((org().user(account.id)?.factors ?? []).map((f) => f.factorType)).toEqual(['webauthn']);
  });

  it('needs the step-up to remove one', async () => {
    const { account, session } = await withPasskey();
    const second = await register(session, new SoftwareAuthenticator());
    await nextSecond();
    const fresh = await signIn(account);
    expect(await call('DELETE', paths.remove(account.id, second.id), fresh, {})).toMatchObject({
      status: 403,
      body: { code: 'step_up_required' },
    });
    expect(webauthnFactors(account)).toHaveLength(2);
  });

  it('with hosted enrolment (no passkey step-up here), needs a fresh sign-in instead', async () => {
    const { account, session } = await withPasskey();
    await register(session, new SoftwareAuthenticator());
    await nextSecond();
    const stale = await signIn(account, { signedInAgo: 600 });
    const [first] = webauthnFactors(account);
    expect(
      await call('DELETE', paths.remove(account.id, String(first?.id)), stale, {}, hosted),
    ).toMatchObject({
      status: 403,
      body: { code: 'step_up_required', error: PASSKEY_SIGN_IN_AGAIN_ERROR },
    });
    // Not offered for the step-up either: the challenge names no passkey there.
    const challenge = await call('GET', paths.challenge(account.id), stale, undefined, hosted);
    expect(challenge.body).not.toHaveProperty('activeFactorsData.passkey');
    expect(await call('POST', paths.stepUpOptions(account.id), stale, {}, hosted)).toMatchObject({
      status: 409,
      body: { code: 'passkeys_unavailable', error: PASSKEY_STEP_UP_UNAVAILABLE_ERROR },
    });
    const fresh = await signIn(account);
    expect(
      await call('DELETE', paths.remove(account.id, String(first?.id)), fresh, {}, hosted),
    ).toMatchObject({ status: 200 });
    expect(webauthnFactors(account)).toHaveLength(1);
  });
});

describe('step-up with a passkey', () => {
  it('verifies with Okta and grants this session; a replay and another credential are refused', async () => {
    const { account, authenticator } = await withPasskey();
    await nextSecond();
    const session = await signIn(account);
    expect((await call('GET', paths.challenge(account.id), session)).body).toMatchObject({
      challengeUser: true,
      activeFactorsData: { passkey: { count: 1 } },
    });
    const options = await stepUpOptions(session);
    expect(options).toMatchObject({
      rpId: RP_ID,
      userVerification: 'required',
      allowCredentials: [{ id: authenticator.id, type: 'public-key' }],
    });
    const answer = authenticator.assert(options);
    expect(await stepUpVerify(session, answer)).toMatchObject({ status: 200, body: { status: 'VERIFIED' } });
    expect((await call('GET', paths.challenge(account.id), session)).body).toMatchObject({
      challengeUser: false,
    });
    expect(await stepUpVerify(session, answer)).toMatchObject({
      status: 400,
      body: { code: 'passkey_refused', error: PASSKEY_CHALLENGE_ERROR },
    });
    const stranger = new SoftwareAuthenticator();
    expect(await stepUpVerify(session, stranger.assert(await stepUpOptions(session)))).toMatchObject({
      status: 400,
      body: { code: 'passkey_refused', error: PASSKEY_UNKNOWN_ERROR },
    });
  });

  it('refuses a challenge of another session, and an answer for another origin (Okta refuses it)', async () => {
    const { account, authenticator } = await withPasskey();
    await nextSecond();
    const mine = await signIn(account);
    const theirs = await signIn(account);
    expect(await stepUpVerify(mine, authenticator.assert(await stepUpOptions(theirs)))).toMatchObject({
      status: 400,
      body: { code: 'passkey_refused', error: PASSKEY_CHALLENGE_ERROR },
    });
    const options = await stepUpOptions(mine);
    expect(
      await stepUpVerify(mine, authenticator.assert(options, { origin: 'https://evil.example' })),
    ).toMatchObject({ status: 400, body: { code: 'passkey_refused', error: PASSKEY_ANSWER_ERROR } });
  });

  it('counts refused answers with the wrong codes: locked at the limit (429)', async () => {
    const { account, authenticator } = await withPasskey();
    await nextSecond();
    const session = await signIn(account);
    for (let i = 0; i < 5; i += 1) {
      const options = await stepUpOptions(session);
      const refused = await stepUpVerify(
        session,
        authenticator.assert(options, { origin: 'https://evil.example' }),
      );
      expect(refused.status).toBe(400);
    }
    expect((await call('POST', paths.stepUpOptions(account.id), session, {})).status).toBe(429);
  });
});

describe('the password change of a holder whose only method is an Okta passkey', () => {
  it('needs a fresh sign-in or a passkey step-up: the passkey counts as a method, once', async () => {
    const { account, authenticator } = await withPasskey();
    await nextSecond();
    const stale = await signIn(account, { signedInAgo: 600 });
    const change = (NewPassword: string) =>
      call('PUT', apiPaths.passwordChange(account.id), stale, { OldPassword: account.password, NewPassword });
    const refused = await change(passwordUnlike(account.login));
    expect(refused).toMatchObject({ status: 403, body: { code: 'step_up_required' } });
    expect(org().passwordMatches(account.id, account.password)).toBe(true);
    expect(await stepUpVerify(stale, authenticator.assert(await stepUpOptions(stale)))).toMatchObject({
      status: 200,
    });
    const newPassword = passwordUnlike(account.login, 'Nw', 'Secure-9');
    expect((await change(newPassword)).status).toBe(200);
    expect(org().passwordMatches(account.id, newPassword)).toBe(true);
  });
});

describe('authorization', () => {
  const calls = (sub: string, id: string) =>
    [
      ['GET', paths.list(sub), undefined],
      ['POST', paths.regOptions(sub), {}],
      ['POST', paths.regVerify(sub), { response: { id: 'x' } }],
      ['PUT', paths.rename(sub, id), { name: 'n' }],
      ['DELETE', paths.remove(sub, id), {}],
      ['POST', paths.stepUpOptions(sub), {}],
      ['POST', paths.stepUpVerify(sub), { response: { id: 'x' } }],
    ] as const;

  it('refuses no token (401), another sub (403) and an ended session (401) on every passkey call', async () => {
    const { account, session, passkey } = await withPasskey();
    const other = await signIn(newAccount());
    const ended = await signIn(account, { signedInAgo: 60, issuedAgo: 60 });
    // A 2-step change (a second passkey) ends the account's sessions but the one that made it.
    await register(session, new SoftwareAuthenticator());
    const requestsBefore = org().requests().length;
    for (const [method, url, body] of calls(account.id, passkey.id)) {
      expect((await call(method, url, undefined, body)).status, url).toBe(401);
      expect((await call(method, url, other, body)).body, url).toMatchObject({ code: 'forbidden_sub' });
      expect((await call(method, url, ended, body)).status, url).toBe(401);
    }
    // None of them reached the org's factors.
    expect(
      org()
        .requests()
        .slice(requestsBefore)
        .filter((r) => r.path.includes('/factors')),
    ).toEqual([]);
    expect(webauthnFactors(account)).toHaveLength(2);
  });
});
