/**
 * Passkeys through the API (embedded backend, on SQLite): registration and step-up journeys with a software
 * authenticator making real ES256 credentials, and each attack written as a test: a replayed or foreign or expired
 * challenge, another origin or RP ID, no user verification, a counter that went backwards (cloned), a credential
 * of another account, another account's passkey ids, the last method, the authorization matrix, bad bodies and a
 * parallel burst on one challenge. The stores on both databases: test/storage/passkeys.test.ts.
 */
import { API_ERROR_CODES, apiCalls, pathOf, STEP_UP_TTL_MS } from 'shared-auth/contract';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  call,
  clockedAppInStep,
  clockInStep,
  enrolAuthenticator,
  newUser,
  renewSilently,
  signInSession,
  totp,
  type ClockedApp,
} from './security-helpers.js';
import { challengeBinding } from '../src/passkeys/challenges.js';
import { parseTwice } from './helpers.js';
import { SoftwareAuthenticator } from './support/software-authenticator.js';

/** The app of the running block: each block has its own (the sign-in form's per-address windows stay apart). */
let t: ClockedApp;
function appForThisBlock(): void {
  const app = clockedAppInStep();
  beforeEach(() => {
    t = app;
  });
}

const CHROME_LINUX =
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Safari/537.36';

type Signed = Awaited<ReturnType<typeof signInSession>>;

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

/** An API call as the browser makes it (with a User-Agent). */
async function api(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  token: string,
  body?: unknown,
  userAgent = CHROME_LINUX,
) {
  const response = await t.app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      'user-agent': userAgent,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  // Success answers are JSON text (the spec's clients parse twice); refusals plain JSON.
  const data = response.statusCode < 300 ? parseTwice(response.body) : response.json();
  return { status: response.statusCode, data: data as Record<string, unknown> };
}

async function mailTo(email: string): Promise<{ subject: string; text: string }[]> {
  await t.app.notifier.drain();
  const messages = (await t.app.inject('/dev/mailbox/messages')).json<
    { to: string; subject: string; text: string }[]
  >();
  return messages.filter((message) => message.to === email);
}

/** After a 2-step change ended its grant chain, the page renews with its session cookie. */
async function renew(session: Signed): Promise<void> {
  session.token = (await renewSilently(t.app, session.jar)).access_token;
}

async function registrationOptions(session: Signed) {
  const answer = await api('POST', paths.regOptions(session.user.id), session.token, {});
  expect(answer.status, JSON.stringify(answer.data)).toBe(200);
  return (answer.data as { options: { challenge: string } & Record<string, unknown> }).options;
}

/** Registers a passkey of `authenticator` for the session (must be allowed to) and renews its token. */
async function register(session: Signed, authenticator: SoftwareAuthenticator, userAgent = CHROME_LINUX) {
  const options = await registrationOptions(session);
  const answer = await api(
    'POST',
    paths.regVerify(session.user.id),
    session.token,
    { response: authenticator.register(options) },
    userAgent,
  );
  expect(answer.status, JSON.stringify(answer.data)).toBe(200);
  await renew(session);
  return answer.data as { id: string; name: string; synced: boolean; lastUsedAt: string | null };
}

async function stepUpOptions(session: Signed) {
  const answer = await api('POST', paths.stepUpOptions(session.user.id), session.token, {});
  expect(answer.status, JSON.stringify(answer.data)).toBe(200);
  return (answer.data as { options: { challenge: string } & Record<string, unknown> }).options;
}

const stepUpVerify = (session: Signed, response: unknown) =>
  api('POST', paths.stepUpVerify(session.user.id), session.token, { response });

/** A fresh sign-in with a passkey registered as its first 2-step method. */
async function withPasskey(options: ConstructorParameters<typeof SoftwareAuthenticator>[0] = {}) {
  const session = await signInSession(t.app, await newUser(t.app));
  const authenticator = new SoftwareAuthenticator(options);
  const passkey = await register(session, authenticator);
  return { session, authenticator, passkey };
}

const expireGrant = () => t.clock.advance(STEP_UP_TTL_MS + 1000);

describe('registration', () => {
  appForThisBlock();

  it('registers a first passkey after a fresh sign-in: options, verify, list, challenge data, notice', async () => {
    const session = await signInSession(t.app, await newUser(t.app));
    const options = await registrationOptions(session);
    expect(options).toMatchObject({
      rp: { id: 'localhost' },
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
      excludeCredentials: [],
      attestation: 'none',
    });
    const authenticator = new SoftwareAuthenticator();
    const verified = await api('POST', paths.regVerify(session.user.id), session.token, {
      response: authenticator.register(options),
    });
    expect(verified.status, JSON.stringify(verified.data)).toBe(200);
    expect(verified.data).toMatchObject({ name: 'Chrome on Linux', lastUsedAt: null, synced: false });
    await renew(session);
    const list = await api('GET', paths.list(session.user.id), session.token);
    expect(list.data).toMatchObject({ available: true, canRename: true, enrolment: 'ceremony' });
    expect((list.data.passkeys as unknown[]).length).toBe(1);
    const challenge = await api('GET', paths.challenge(session.user.id), session.token);
    expect(challenge.data).toMatchObject({
      challengeUser: false,
      activeFactorsData: { passkey: { count: 1 } },
    });
    const mail = await mailTo(session.user.email);
    expect(mail.map((m) => m.subject)).toContain('A passkey was added to your F5 account');
    expect(mail.find((m) => m.subject.startsWith('A passkey was added'))?.text).toContain(
      'A passkey ("Chrome on Linux") was added to 2-step verification of your F5 account on the Security page.',
    );
  });

  it('names a passkey after a known AAGUID, else "Passkey" without a known browser', async () => {
    const google = await withPasskey({ aaguid: 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4' });
    expect(google.passkey.name).toBe('Google Password Manager');
    const session = await signInSession(t.app, await newUser(t.app));
    const plain = await register(session, new SoftwareAuthenticator(), 'curl/8.0');
    expect(plain.name).toBe('Passkey');
  });

  it('ends the account’s other sessions', async () => {
    const account = await newUser(t.app);
    const other = await signInSession(t.app, account);
    const session = await signInSession(t.app, account);
    await register(session, new SoftwareAuthenticator());
    expect((await api('GET', paths.list(account.user.id), other.token)).status).toBe(401);
  });

  it('lists the holder’s passkeys in excludeCredentials, and refuses re-registering one (400 passkey_refused)', async () => {
    const { session, authenticator } = await withPasskey();
    const options = await registrationOptions(session);
    expect(options.excludeCredentials).toEqual([
      { id: authenticator.id, type: 'public-key', transports: ['internal', 'hybrid'] },
    ]);
    const again = await api('POST', paths.regVerify(session.user.id), session.token, {
      response: authenticator.register(options),
    });
    expect(again).toMatchObject({ status: 400, data: { code: API_ERROR_CODES.passkeyRefused } });
    expect(again.data.error).toBe(
      'This passkey is already registered. Choose another passkey or security key.',
    );
  });

  it('refuses a credential registered to another account', async () => {
    const { authenticator } = await withPasskey();
    const mallory = await signInSession(t.app, await newUser(t.app));
    const options = await registrationOptions(mallory);
    const stolen = await api('POST', paths.regVerify(mallory.user.id), mallory.token, {
      response: authenticator.register(options),
    });
    expect(stolen).toMatchObject({ status: 400, data: { code: API_ERROR_CODES.passkeyRefused } });
    expect((await api('GET', paths.list(mallory.user.id), mallory.token)).data.passkeys).toEqual([]);
  });

  it('refuses a replayed answer (the challenge is used once)', async () => {
    const session = await signInSession(t.app, await newUser(t.app));
    const options = await registrationOptions(session);
    const answer = new SoftwareAuthenticator().register(options);
    const first = await api('POST', paths.regVerify(session.user.id), session.token, { response: answer });
    expect(first.status).toBe(200);
    await renew(session);
    const replay = await api('POST', paths.regVerify(session.user.id), session.token, {
      response: new SoftwareAuthenticator().register(options),
    });
    expect(replay).toMatchObject({
      status: 400,
      data: {
        code: 'passkey_refused',
        error: 'This passkey request has expired or was already used. Try again.',
      },
    });
  });

  it('refuses a challenge issued to another session of the same account', async () => {
    const account = await newUser(t.app);
    const a = await signInSession(t.app, account);
    const b = await signInSession(t.app, account);
    const options = await registrationOptions(a);
    const answer = await api('POST', paths.regVerify(account.user.id), b.token, {
      response: new SoftwareAuthenticator().register(options),
    });
    expect(answer).toMatchObject({ status: 400, data: { code: 'passkey_refused' } });
  });

  it.each([
    ['another origin', { origin: 'https://evil.example' }],
    ['another RP ID', { rpId: 'evil.example' }],
    ['no user verification', { uv: false }],
    ['a sign-in answer instead of a registration', { type: 'webauthn.get' }],
  ])('refuses %s (400 passkey_refused), and stores nothing', async (_label, knobs) => {
    const session = await signInSession(t.app, await newUser(t.app));
    const options = await registrationOptions(session);
    const answer = await api('POST', paths.regVerify(session.user.id), session.token, {
      response: new SoftwareAuthenticator().register(options, knobs),
    });
    expect(answer).toMatchObject({ status: 400, data: { code: 'passkey_refused' } });
    if ('uv' in knobs) {
      expect(answer.data.error).toBe(
        'Your passkey did not confirm it was you (no PIN, fingerprint or face check). Try again and unlock it when asked.',
      );
    }
    expect((await api('GET', paths.list(session.user.id), session.token)).data.passkeys).toEqual([]);
  });

  it('needs "Confirm it’s you" for a first method after an old sign-in, and step-up once a method is on', async () => {
    const session = await signInSession(t.app, await newUser(t.app));
    t.clock.advance(STEP_UP_TTL_MS + 30_000);
    const stale = await api('POST', paths.regOptions(session.user.id), session.token, {});
    expect(stale).toMatchObject({ status: 403, data: { code: 'reauthentication_required' } });
    clockInStep(t);
    const { session: holder } = await withPasskey();
    expireGrant();
    const noGrant = await api('POST', paths.regOptions(holder.user.id), holder.token, {});
    expect(noGrant).toMatchObject({ status: 403, data: { code: 'step_up_required' } });
  });
});

describe('step-up with a passkey', () => {
  appForThisBlock();

  it('verifies and grants this session 5 minutes, records the use', async () => {
    const { session, authenticator, passkey } = await withPasskey();
    expireGrant();
    const challenge = await api('GET', paths.challenge(session.user.id), session.token);
    expect(challenge.data).toMatchObject({
      challengeUser: true,
      activeFactorsData: { passkey: { count: 1 } },
    });
    const options = await stepUpOptions(session);
    expect(options).toMatchObject({
      rpId: 'localhost',
      userVerification: 'required',
      allowCredentials: [{ id: authenticator.id, type: 'public-key' }],
    });
    const verified = await stepUpVerify(session, authenticator.assert(options));
    expect(verified.status, JSON.stringify(verified.data)).toBe(200);
    expect(verified.data.status).toBe('VERIFIED');
    expect((await api('GET', paths.challenge(session.user.id), session.token)).data.challengeUser).toBe(
      false,
    );
    const list = await api('GET', paths.list(session.user.id), session.token);
    expect((list.data.passkeys as { id: string; lastUsedAt: string }[])[0]).toMatchObject({
      id: passkey.id,
      lastUsedAt: new Date(t.clock.now).toISOString(),
    });
  });

  it('refuses a replayed assertion', async () => {
    const { session, authenticator } = await withPasskey();
    const options = await stepUpOptions(session);
    const assertion = authenticator.assert(options);
    expect((await stepUpVerify(session, assertion)).status).toBe(200);
    expect(await stepUpVerify(session, assertion)).toMatchObject({
      status: 400,
      data: { code: 'passkey_refused' },
    });
  });

  it('refuses an expired challenge', async () => {
    const { session, authenticator } = await withPasskey();
    const options = await stepUpOptions(session);
    t.clock.advance(5 * 60 * 1000 + 1);
    expect(await stepUpVerify(session, authenticator.assert(options))).toMatchObject({
      status: 400,
      data: { code: 'passkey_refused' },
    });
  });

  it('refuses a challenge of another session, another origin, another RP ID, no user verification', async () => {
    const account = await newUser(t.app);
    const session = await signInSession(t.app, account);
    const authenticator = new SoftwareAuthenticator();
    await register(session, authenticator);
    for (const knobs of [{ origin: 'https://evil.example' }, { rpId: 'evil.example' }, { uv: false }]) {
      const options = await stepUpOptions(session);
      expect(await stepUpVerify(session, authenticator.assert(options, knobs))).toMatchObject({
        status: 400,
        data: { code: 'passkey_refused' },
      });
    }
    // A second sign-in of the account (after the change, so it stays).
    const other = await signInSession(t.app, account, (page) => {
      throw new Error(`second step asked: ${page.statusCode}`);
    }).catch(() => undefined);
    expect(other).toBeUndefined();
  });

  it('refuses another account’s passkey for this account’s step-up', async () => {
    const { authenticator } = await withPasskey();
    const { session: mallory } = await withPasskey();
    const options = await stepUpOptions(mallory);
    expect(await stepUpVerify(mallory, authenticator.assert(options))).toMatchObject({
      status: 400,
      data: { code: 'passkey_refused', error: 'This passkey is not registered to your account.' },
    });
  });

  it('a counter that went backwards marks the passkey cloned: refused from then on, the holder is told', async () => {
    const { session, authenticator } = await withPasskey({ counter: 5 });
    expect((await stepUpVerify(session, authenticator.assert(await stepUpOptions(session)))).status).toBe(
      200,
    );
    const cloned = await stepUpVerify(
      session,
      authenticator.assert(await stepUpOptions(session).catch(() => ({ challenge: '' })), { counter: 3 }),
    );
    expect(cloned).toMatchObject({ status: 400, data: { code: 'passkey_refused' } });
    expect(cloned.data.error).toContain('may have been copied');
    // No usable passkey is left: no options, and a later (even growing) counter is refused.
    const options = await api('POST', paths.stepUpOptions(session.user.id), session.token, {});
    expect(options).toMatchObject({ status: 409, data: { code: 'factor_state' } });
    const mail = await mailTo(session.user.email);
    expect(mail.map((m) => m.subject)).toContain('A passkey of your F5 account was blocked');
  });

  it('an unsigned forgery with a lower counter cannot block a passkey', async () => {
    const { session, authenticator } = await withPasskey({ counter: 5 });
    const options = await stepUpOptions(session);
    const forged = authenticator.assert(options, { counter: 1 });
    (forged.response as Record<string, string>).signature = Buffer.alloc(70, 1).toString('base64url');
    expect((await stepUpVerify(session, forged)).status).toBe(400);
    expect((await stepUpVerify(session, authenticator.assert(await stepUpOptions(session)))).status).toBe(
      200,
    );
  });

  it('a parallel burst of verifies with one challenge: exactly one wins', async () => {
    const { session, authenticator } = await withPasskey();
    const options = await stepUpOptions(session);
    const assertion = authenticator.assert(options);
    const answers = await Promise.all(Array.from({ length: 8 }, () => stepUpVerify(session, assertion)));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    // The others: refused (the challenge was used), or throttled (each counted before it was checked).
    for (const answer of answers.filter((a) => a.status !== 200)) expect([400, 429]).toContain(answer.status);
  });

  it('counts refused answers with the wrong codes: locked at the limit (429)', async () => {
    const { session, authenticator } = await withPasskey();
    for (let i = 0; i < 5; i += 1) {
      const options = await stepUpOptions(session);
      expect((await stepUpVerify(session, authenticator.assert(options, { uv: false }))).status).toBe(400);
    }
    expect((await api('POST', paths.stepUpOptions(session.user.id), session.token, {})).status).toBe(429);
  });
});

describe('rename, removal and the last method', () => {
  appForThisBlock();

  it('renames (trimmed) and refuses another account’s passkey id with 404', async () => {
    const { session, passkey } = await withPasskey();
    const renamed = await api('PUT', paths.rename(session.user.id, passkey.id), session.token, {
      name: '  Laptop  ',
    });
    expect(renamed).toMatchObject({ status: 200, data: { id: passkey.id, name: 'Laptop' } });
    const { session: mallory } = await withPasskey();
    expect(
      await api('PUT', paths.rename(mallory.user.id, passkey.id), mallory.token, { name: 'Mine' }),
    ).toMatchObject({
      status: 404,
      data: { code: 'not_found' },
    });
    expect(await api('DELETE', paths.remove(mallory.user.id, passkey.id), mallory.token, {})).toMatchObject({
      status: 404,
      data: { code: 'not_found' },
    });
    expect(
      (await api('PUT', paths.rename(session.user.id, passkey.id), session.token, { name: 'x'.repeat(65) }))
        .status,
    ).toBe(400);
  });

  it('refuses removing the last method (409 last_factor); removes one when another method remains', async () => {
    const { session, authenticator, passkey } = await withPasskey();
    const last = await api('DELETE', paths.remove(session.user.id, passkey.id), session.token, {});
    expect(last).toMatchObject({ status: 409, data: { code: 'last_factor' } });
    const second = await register(session, new SoftwareAuthenticator());
    expect(second.id).not.toBe(passkey.id);
    const removed = await api('DELETE', paths.remove(session.user.id, passkey.id), session.token, {});
    expect(removed.status, JSON.stringify(removed.data)).toBe(200);
    expect((removed.data.passkeys as { id: string }[]).map((p) => p.id)).toEqual([second.id]);
    expect(authenticator.id).toBeTruthy();
    const mail = await mailTo(session.user.email);
    expect(mail.map((m) => m.subject)).toContain('A passkey was removed from your F5 account');
  });

  it('needs the step-up grant to remove', async () => {
    const { session } = await withPasskey();
    const second = await register(session, new SoftwareAuthenticator());
    expireGrant();
    expect(await api('DELETE', paths.remove(session.user.id, second.id), session.token, {})).toMatchObject({
      status: 403,
      data: { code: 'step_up_required' },
    });
  });

  it('a passkey is a method for the factors: the authenticator app may go while a passkey remains', async () => {
    const session = await signInSession(t.app, await newUser(t.app));
    const secret = await enrolAuthenticator(t, session);
    await register(session, new SoftwareAuthenticator());
    const reset = await call(t.app, 'DELETE', `/api/multifactor/googleauth/${session.user.id}/reset`, {
      token: session.token,
      body: { optOut: true },
    });
    expect(reset.status, JSON.stringify(reset.data)).toBe(200);
    expect(secret).toBeTruthy();
    expect(totp).toBeTruthy();
  });

  it('recovery codes may be generated with only a passkey on', async () => {
    const { session } = await withPasskey();
    const generated = await api('POST', `/api/recoverycodes/${session.user.id}/generate`, session.token, {});
    expect(generated.status, JSON.stringify(generated.data)).toBe(200);
  });
});

describe('authorization and bad input', () => {
  appForThisBlock();

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

  it('refuses no token (401), another sub (403), a dead session (401) and a federated user (403)', async () => {
    const { session, passkey } = await withPasskey();
    const account = await newUser(t.app);
    const dead = await signInSession(t.app, account);
    const live = await signInSession(t.app, account);
    await register(live, new SoftwareAuthenticator());
    const federated = await signInSession(t.app, await newUser(t.app, { federated: true }));
    for (const [method, url, body] of calls(session.user.id, passkey.id)) {
      const none = await t.app.inject({ method, url, ...(body ? { payload: body } : {}) });
      expect(none.statusCode, url).toBe(401);
      expect((await api(method, url, live.token, body)).data.code, url).toBe('forbidden_sub');
    }
    for (const [method, url, body] of calls(account.user.id, passkey.id)) {
      expect((await api(method, url, dead.token, body)).status, url).toBe(401);
    }
    for (const [method, url, body] of calls(federated.user.id, passkey.id)) {
      expect((await api(method, url, federated.token, body)).data.code, url).toBe('federated_user');
    }
  });

  it('answers bad bodies with a 4xx and a code, never a 500', async () => {
    const { session, passkey } = await withPasskey();
    const bodies: unknown[] = [
      'not json',
      '[]',
      {},
      { response: null },
      { response: { id: '' } },
      { response: { id: 'x'.repeat(2000) } },
      { response: { id: 'abc' } },
      { response: { id: 'abc', response: { clientDataJSON: 42 } } },
      { response: { id: 'abc', response: { clientDataJSON: 'bm90IGpzb24' } } },
      {
        response: {
          id: 'abc',
          response: { clientDataJSON: Buffer.from('{"challenge":1}').toString('base64url') },
        },
      },
      {
        response: {
          id: 'abc',
          rawId: 'abc',
          type: 'public-key',
          response: {
            clientDataJSON: Buffer.from('{"challenge":"zzz"}').toString('base64url'),
            attestationObject: '!!',
          },
        },
      },
    ];
    for (const body of bodies) {
      for (const url of [paths.regVerify(session.user.id), paths.stepUpVerify(session.user.id)]) {
        const answer = await api('POST', url, session.token, body);
        expect(answer.status, `${url} ${JSON.stringify(body)}`).toBeGreaterThanOrEqual(400);
        expect(answer.status, `${url} ${JSON.stringify(body)}`).toBeLessThan(500);
        expect(typeof answer.data.code).toBe('string');
        expect(typeof answer.data.error).toBe('string');
      }
    }
    // A malformed, but well-formed-looking answer with the real challenge: refused, challenge used up. (The
    // garbage above was counted with the wrong codes: start again from no count.)
    await t.app.storage.throttles.wrongCodes.clear(session.user.id);
    const options = await stepUpOptions(session);
    const broken = {
      id: 'abc',
      rawId: 'abc',
      type: 'public-key',
      response: {
        clientDataJSON: Buffer.from(
          JSON.stringify({
            type: 'webauthn.get',
            challenge: options.challenge,
            origin: 'http://localhost:3000',
          }),
        ).toString('base64url'),
        authenticatorData: '',
        signature: '',
      },
    };
    expect((await stepUpVerify(session, broken)).status).toBe(400);
    for (const name of [
      { name: '   ' },
      { name: 5 },
      { nom: 'x' },
      'nope',
      { name: 'a\nb' },
      { name: 'x\u202Ey' },
    ]) {
      const answer = await api('PUT', paths.rename(session.user.id, passkey.id), session.token, name);
      expect(answer.status, JSON.stringify(name)).toBe(400);
    }
  });
});

describe('the verification the sign-in will reuse', () => {
  appForThisBlock();

  it('verifies a discoverable passkey with no user known, bound to a sign-in interaction', async () => {
    const session = await signInSession(t.app, await newUser(t.app));
    const authenticator = new SoftwareAuthenticator({ userId: session.user.id });
    await register(session, authenticator);
    const binding = challengeBinding('interaction', 'interaction-uid-1');
    const { options } = await t.app.passkeys.authenticationOptions(null, binding);
    expect(options.allowCredentials ?? []).toEqual([]);
    const verified = await t.app.passkeys.verifyAuthentication(authenticator.assert(options), binding, null);
    expect(verified.passkey.userId).toBe(session.user.id);
    // Another interaction's answer, and a userHandle naming someone else, are refused.
    const other = await t.app.passkeys.authenticationOptions(null, binding);
    await expect(
      t.app.passkeys.verifyAuthentication(
        authenticator.assert(other.options),
        challengeBinding('interaction', 'x'),
        null,
      ),
    ).rejects.toMatchObject({ statusCode: 400, code: 'passkey_refused' });
    const impostor = new SoftwareAuthenticator({ userId: 'someone-else' });
    const third = await t.app.passkeys.authenticationOptions(null, binding);
    const forged = { ...authenticator.assert(third.options) };
    (forged.response as Record<string, string>).userHandle =
      Buffer.from('someone-else').toString('base64url');
    await expect(t.app.passkeys.verifyAuthentication(forged, binding, null)).rejects.toMatchObject({
      code: 'passkey_refused',
    });
    expect(impostor.id).not.toBe(authenticator.id);
  });
});
