/**
 * Passkeys on the provider's sign-in pages, as an attacker meets them: the second step after the password (an
 * account whose only method is a passkey), passwordless sign-in, and each attack written as a test: a replayed
 * answer, another interaction's challenge, another account's credential, another origin, no user verification, a
 * counter that went backwards, an unknown credential, forged posts (CSRF), the options without a live interaction
 * and a parallel burst on one challenge. Also the scripts: served same-origin, under the unchanged CSP. Driven
 * through the real pages with inject() and a software authenticator making real ES256 credentials.
 */
import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import { apiCalls, pathOf } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import {
  BLOCKED_PASSKEYS_TEXT,
  BLOCKED_PASSKEYS_WITH_CODES,
  BLOCKED_PASSKEYS_WITHOUT_CODES,
  FORM_NOT_VALID,
} from '../src/oidc/interactions/pages.js';
import {
  PASSKEY_CANCELLED,
  PASSKEY_ONLY_HINT,
  PASSKEY_REFUSED,
  SIGN_IN_WITH_PASSKEY,
  USE_PASSKEY,
} from '../src/oidc/interactions/passkey-pages.js';
import { SIGN_IN_EXPIRED } from '../src/oidc/interactions/passkey-routes.js';
import {
  PASSKEY_CHALLENGE_ERROR,
  PASSKEY_CLONED_ERROR,
  PASSKEY_UNKNOWN_ERROR,
  PASSKEY_USER_VERIFICATION_ERROR,
} from '../src/passkeys/texts.js';
import {
  authorizeUrl,
  CookieJar,
  exchangeCode,
  follow,
  hiddenFields,
  parseTwice,
  pkcePair,
  type Tokens,
} from './helpers.js';
import {
  clockedAppInStep,
  enrolAuthenticator,
  formAction,
  newUser,
  signInSession,
} from './security-helpers.js';
import { SoftwareAuthenticator } from './support/software-authenticator.js';

const t = clockedAppInStep();
const PORTAL_ORIGIN = 'http://localhost:3000';

const alertOf = (page: LightMyRequestResponse) => /role="alert">([^<]+)</.exec(page.body)?.[1] ?? '';
const unescape = (value: string) => value.replace(/&amp;/g, '&').replace(/&quot;/g, '"');

type Options = { challenge: string; allowCredentials?: { id: string }[]; userVerification?: string };

/** A new account whose only 2-step method is a passkey of `authenticator` (registered through the API). */
async function passkeyAccount(knobs: { counter?: number; userId?: string } = {}) {
  const account = await newUser(t.app);
  const session = await signInSession(t.app, account);
  const authenticator = new SoftwareAuthenticator({ userId: account.user.id, ...knobs });
  const api = async (path: string, body: unknown) => {
    const response = await t.app.inject({
      method: 'POST',
      url: path,
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
    expect(response.statusCode, response.body).toBe(200);
    return parseTwice(response.body) as Record<string, unknown>;
  };
  const { options } = (await api(
    pathOf(apiCalls.passkeyRegistrationOptions.path, { sub: account.user.id }),
    {},
  )) as {
    options: { challenge: string } & Record<string, unknown>;
  };
  await api(pathOf(apiCalls.passkeyRegistrationVerify.path, { sub: account.user.id }), {
    response: authenticator.register(options),
  });
  return { ...account, authenticator };
}

/** Generates the account's recovery codes (as the Security page would): the codes. */
async function recoveryCodesOf(account: {
  user: Parameters<typeof t.app.recoveryCodes.generate>[0]['user'];
}) {
  const { codes } = await t.app.recoveryCodes.generate({
    user: account.user,
    grantKey: 'test',
    sessionUid: undefined,
    signedInAt: undefined,
    userAgent: undefined,
  });
  return codes;
}

/** One browser's sign-in in progress: its cookies, its current page, its posts. */
let clients = 0;
async function openSignIn() {
  clients += 1;
  // Each browser its own address: the per-address form limit (60 a minute) is shared by the file's tests.
  const remoteAddress = `10.0.${Math.floor(clients / 250)}.${clients % 250}`;
  const jar = new CookieJar();
  const { verifier, challenge } = pkcePair();
  let page = await follow(
    t.app,
    jar,
    await t.app.inject({ url: authorizeUrl({ challenge }), headers: { cookie: jar.header() } }),
  );
  expect(page.statusCode).toBe(200);

  /** Posts the current page's form (its hidden fields, unless `withoutHidden`); the answer itself. */
  async function post(fields: Record<string, string>, options: { withoutHidden?: boolean } = {}) {
    const response = await t.app.inject({
      method: 'POST',
      url: formAction(page.body),
      remoteAddress,
      headers: {
        cookie: jar.header(),
        origin: PORTAL_ORIGIN,
        'content-type': 'application/x-www-form-urlencoded',
      },
      payload: new URLSearchParams({
        ...(options.withoutHidden ? {} : hiddenFields(page.body)),
        ...fields,
      }).toString(),
    });
    jar.store(response);
    return response;
  }

  return {
    jar,
    get page() {
      return page;
    },
    post,
    async submit(fields: Record<string, string>) {
      const next = await follow(t.app, jar, await post(fields));
      if (next.statusCode === 200) page = next;
      return next;
    },
    /** The page's passkey options (POST, with the CSRF token), as its script asks for them. */
    async options(body: Record<string, string> = { csrf: hiddenFields(page.body).csrf ?? '' }) {
      const url = unescape(/data-passkey-options="([^"]+)"/.exec(page.body)?.[1] ?? '');
      expect(url).not.toBe('');
      return t.app.inject({
        method: 'POST',
        url,
        remoteAddress,
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams(body).toString(),
      });
    },
    async optionsOk(): Promise<Options> {
      const response = await this.options();
      expect(response.statusCode, response.body).toBe(200);
      return response.json<{ options: Options }>().options;
    },
    /** Posts a passkey's answer in the page's form. */
    passkey(answer: unknown) {
      return post({ action: 'passkey', passkeyResponse: JSON.stringify(answer) });
    },
    async tokens(done: LightMyRequestResponse): Promise<Tokens> {
      return exchangeCode(t.app, { callback: new URL(String(done.headers.location)), jar, verifier });
    },
  };
}

type SignIn = Awaited<ReturnType<typeof openSignIn>>;

/** A sign-in of `account` with its password: now on the second step. */
async function atSecondStep(account: { user: { email: string }; password: string }): Promise<SignIn> {
  const signIn = await openSignIn();
  const page = await signIn.submit({ email: account.user.email, password: account.password });
  expect(page.statusCode).toBe(200);
  expect(page.body).toContain('2-step verification');
  return signIn;
}

/** Finishes a sign-in whose last post was answered `response` (303): its tokens' claims. */
async function claimsAfter(signIn: SignIn, response: LightMyRequestResponse) {
  expect(response.statusCode, alertOf(response)).toBe(303);
  const done = await follow(t.app, signIn.jar, response);
  const tokens = await signIn.tokens(done);
  const { sid } = decodeJwt(tokens.access_token) as { sid: string };
  return { ...(decodeJwt(tokens.id_token) as { sub: string; amr?: string[] }), sid };
}

describe('the second step with a passkey', () => {
  it('a passkey-only account: password, then its passkey finishes the login (no code field)', async () => {
    const account = await passkeyAccount();
    const signIn = await atSecondStep(account);
    const { body } = signIn.page;
    expect(body).toContain(PASSKEY_ONLY_HINT);
    expect(body).not.toContain('name="code"');
    expect(body).not.toContain('>Verify<');
    expect(body).toContain(
      `<button type="button" id="passkey-button" class="secondary" hidden>${USE_PASSKEY}</button>`,
    );
    expect(body).toContain(`data-passkey-cancelled="${PASSKEY_CANCELLED}"`);
    const options = await signIn.optionsOk();
    expect(options.userVerification).toBe('required');
    expect(options.allowCredentials?.map((credential) => credential.id)).toEqual([account.authenticator.id]);
    const claims = await claimsAfter(signIn, await signIn.passkey(account.authenticator.assert(options)));
    expect(claims.sub).toBe(account.user.id);
    expect(claims.amr).toEqual(['pwd', 'hwk', 'user', 'mfa']);
    // This browser is now known to the account, as after a code.
    expect(signIn.jar.has('portal_device')).toBe(true);
  });

  it('a passkey-only account with recovery codes is still offered one, and it finishes the login', async () => {
    const account = await passkeyAccount();
    const codes = await recoveryCodesOf(account);
    const signIn = await atSecondStep(account);
    expect(signIn.page.body).toContain(PASSKEY_ONLY_HINT);
    expect(signIn.page.body).toContain('value="use-recovery-code"');
    const form = await signIn.submit({ action: 'use-recovery-code' });
    expect(form.body).toContain('name="recoveryCode"');
    const claims = await claimsAfter(
      signIn,
      await signIn.post({ action: 'recovery-code', recoveryCode: codes[0] ?? '' }),
    );
    expect(claims.amr).toEqual(['pwd', 'recovery-code', 'mfa']);
  });

  it('an account without a passkey gets the code page as before: no button, no script', async () => {
    const plain = await newUser(t.app);
    await enrolAuthenticator(t, await signInSession(t.app, plain));
    const page = (await atSecondStep(plain)).page.body;
    expect(page).toContain('name="code"');
    expect(page).not.toContain(USE_PASSKEY);
    expect(page).not.toContain('<script');
  });

  it('refuses a replayed answer: a challenge is used once', async () => {
    const account = await passkeyAccount();
    const first = await atSecondStep(account);
    const answer = account.authenticator.assert(await first.optionsOk());
    await claimsAfter(first, await first.passkey(answer));
    // The same answer in the holder's next sign-in (the attacker's copy).
    const second = await atSecondStep(account);
    const replayed = await second.passkey(answer);
    expect(replayed.statusCode).toBe(400);
    expect(alertOf(replayed)).toBe(PASSKEY_CHALLENGE_ERROR);
  });

  it("refuses an answer to another interaction's challenge, and that challenge is used up", async () => {
    const account = await passkeyAccount();
    const victim = await atSecondStep(account);
    const attacker = await atSecondStep(account);
    const options = await victim.optionsOk();
    const answer = account.authenticator.assert(options);
    const foreign = await attacker.passkey(answer);
    expect(foreign.statusCode).toBe(400);
    expect(alertOf(foreign)).toBe(PASSKEY_CHALLENGE_ERROR);
    const late = await victim.passkey(answer);
    expect(alertOf(late)).toBe(PASSKEY_CHALLENGE_ERROR);
  });

  it("refuses another account's credential at the second step", async () => {
    const mallory = await passkeyAccount();
    const victim = await passkeyAccount();
    const signIn = await atSecondStep(victim);
    const refused = await signIn.passkey(mallory.authenticator.assert(await signIn.optionsOk()));
    expect(refused.statusCode).toBe(400);
    expect(alertOf(refused)).toBe(PASSKEY_UNKNOWN_ERROR);
  });

  it('refuses another origin, and an answer without user verification', async () => {
    const account = await passkeyAccount();
    const signIn = await atSecondStep(account);
    const origin = await signIn.passkey(
      account.authenticator.assert(await signIn.optionsOk(), { origin: 'https://evil.example' }),
    );
    expect(origin.statusCode).toBe(400);
    expect(alertOf(origin)).toBe(PASSKEY_REFUSED);
    const noUv = await signIn.passkey(account.authenticator.assert(await signIn.optionsOk(), { uv: false }));
    expect(noUv.statusCode).toBe(400);
    expect(alertOf(noUv)).toBe(PASSKEY_USER_VERIFICATION_ERROR);
  });

  it('a counter that went backwards blocks the passkey and tells the holder', async () => {
    const account = await passkeyAccount({ counter: 5 });
    const signIn = await atSecondStep(account);
    const cloned = await signIn.passkey(
      account.authenticator.assert(await signIn.optionsOk(), { counter: 3 }),
    );
    expect(cloned.statusCode).toBe(400);
    expect(alertOf(cloned)).toBe(PASSKEY_CLONED_ERROR);
    // The blocked passkey is no longer offered: no button, no options.
    expect(cloned.body).not.toContain(USE_PASSKEY);
    expect((await signIn.options()).statusCode).toBe(409);
    await t.app.notifier.drain();
    const mail = (await t.app.inject('/dev/mailbox/messages')).json<{ to: string; text: string }[]>();
    expect(mail.some((message) => message.to === account.user.email && /cop/.test(message.text))).toBe(true);

    // 2-step verification stays on: the password alone still does not sign in, and the page says how to get back in.
    const next = await atSecondStep(account);
    expect(next.page.body).toContain(BLOCKED_PASSKEYS_TEXT);
    expect(next.page.body).toContain(BLOCKED_PASSKEYS_WITHOUT_CODES);
    expect(next.page.body).toContain('href="/oauth2/default/reset-password">Forgot password?</a>');
    expect(next.page.body).not.toContain('<form');
  });

  it('an account whose only passkey is blocked is offered its recovery codes, which finish the login', async () => {
    const account = await passkeyAccount();
    const codes = await recoveryCodesOf(account);
    const [passkey] = await t.app.storage.passkeys.list(account.user.id);
    await t.app.storage.passkeys.markCloned(passkey?.id ?? '', t.clock.now);
    const signIn = await atSecondStep(account);
    expect(signIn.page.body).toContain(BLOCKED_PASSKEYS_WITH_CODES);
    // A code posted by hand finishes nothing: the account has no method that takes one.
    const forged = await signIn.post({ action: 'verify', code: '123456' });
    expect(forged.statusCode).toBeGreaterThanOrEqual(400);
    expect(forged.body).toContain(BLOCKED_PASSKEYS_TEXT);
    const form = await signIn.submit({ action: 'use-recovery-code' });
    expect(form.body).toContain('name="recoveryCode"');
    const claims = await claimsAfter(
      signIn,
      await signIn.post({ action: 'recovery-code', recoveryCode: codes[0] ?? '' }),
    );
    expect(claims.amr).toEqual(['pwd', 'recovery-code', 'mfa']);
  });

  it('a burst of parallel posts of one answer: exactly one wins', async () => {
    const account = await passkeyAccount();
    const signIn = await atSecondStep(account);
    const answer = account.authenticator.assert(await signIn.optionsOk());
    const answers = await Promise.all(Array.from({ length: 6 }, () => signIn.passkey(answer)));
    expect(answers.filter((response) => response.statusCode === 303)).toHaveLength(1);
    const statuses = answers.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 303)).toHaveLength(1);
    // The losers: the challenge was used (400), or the wrong-code throttle counted them first (429).
    expect(
      statuses.filter((status) => status !== 303).every((status) => status === 400 || status === 429),
    ).toBe(true);
  });
});

describe('passwordless sign-in', () => {
  it('the sign-in page offers the button and the autofill; a passkey signs in with amr and a fresh auth_time', async () => {
    const account = await passkeyAccount();
    const signIn = await openSignIn();
    const { body } = signIn.page;
    expect(body).toContain('autocomplete="username webauthn"');
    expect(body).toContain('data-passkey-autofill="true"');
    expect(body).toContain(`hidden>${SIGN_IN_WITH_PASSKEY}</button>`);
    const options = await signIn.optionsOk();
    expect(options.userVerification).toBe('required');
    expect(options.allowCredentials ?? []).toEqual([]);
    const before = Math.floor(Date.now() / 1000);
    const claims = await claimsAfter(signIn, await signIn.passkey(account.authenticator.assert(options)));
    expect(claims.sub).toBe(account.user.id);
    expect(claims.amr).toEqual(['hwk', 'user', 'mfa']);
    // The provider session's login time (auth_time), which "Confirm it's you" reads: this sign-in.
    const loginTime = await t.app.storage.provider.sessionLoginTime(account.user.id, claims.sid);
    expect(loginTime).toBeGreaterThanOrEqual(before - 1);
    expect(signIn.jar.has('portal_device')).toBe(true);
  });

  it('refuses an unknown credential, and a userHandle that is not its holder', async () => {
    const account = await passkeyAccount();
    const signIn = await openSignIn();
    const stranger = new SoftwareAuthenticator({ userId: account.user.id });
    const unknown = await signIn.passkey(stranger.assert(await signIn.optionsOk()));
    expect(unknown.statusCode).toBe(400);
    expect(alertOf(unknown)).toBe(PASSKEY_UNKNOWN_ERROR);
    expect(unknown.body).toContain('<h1>Sign in</h1>');
    const other = await newUser(t.app);
    const answer = account.authenticator.assert(await signIn.optionsOk());
    const response = answer.response as Record<string, unknown>;
    response.userHandle = Buffer.from(other.user.id).toString('base64url');
    const swapped = await signIn.passkey(answer);
    expect(swapped.statusCode).toBe(400);
  });

  it('refuses a passkey of a federated account (it signs in at its organization)', async () => {
    const federated = await newUser(t.app, { federated: true });
    // A passkey registered elsewhere, moved under the federated account in storage (the API never lets it have one).
    const account = await passkeyAccount({ userId: federated.user.id });
    const [record] = await t.app.storage.passkeys.list(account.user.id);
    if (!record) throw new Error('no passkey');
    await t.app.storage.passkeys.remove(account.user.id, record.id);
    expect(
      await t.app.storage.passkeys.insert({ ...record, id: `${record.id}f`, userId: federated.user.id }),
    ).toBe(true);
    const signIn = await openSignIn();
    const refused = await signIn.passkey(account.authenticator.assert(await signIn.optionsOk()));
    expect(refused.statusCode).toBe(400);
    expect(alertOf(refused)).toBe(PASSKEY_REFUSED);
  });

  it('refuses a passkey post without or with a wrong CSRF token, and options without one', async () => {
    const account = await passkeyAccount();
    const signIn = await openSignIn();
    const answer = account.authenticator.assert(await signIn.optionsOk());
    const missing = await signIn.post(
      { action: 'passkey', passkeyResponse: JSON.stringify(answer) },
      { withoutHidden: true },
    );
    expect(missing.statusCode).toBe(403);
    expect(missing.body).toContain(FORM_NOT_VALID);
    const wrong = await signIn.post({
      action: 'passkey',
      passkeyResponse: JSON.stringify(answer),
      csrf: 'x'.repeat(43),
    });
    expect(wrong.statusCode).toBe(403);
    expect((await signIn.options({})).statusCode).toBe(403);
    expect((await signIn.options({ csrf: 'forged' })).json()).toEqual({ error: FORM_NOT_VALID });
    // The answer was never checked: it still signs in.
    await claimsAfter(signIn, await signIn.passkey(answer));
  });

  it('answers the options without a live interaction with a 4xx, never a 500', async () => {
    const signIn = await openSignIn();
    const csrf = hiddenFields(signIn.page.body).csrf ?? '';
    const url = unescape(/data-passkey-options="([^"]+)"/.exec(signIn.page.body)?.[1] ?? '');
    const noCookie = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf }).toString(),
    });
    expect(noCookie.statusCode).toBe(400);
    expect(noCookie.json()).toEqual({ error: SIGN_IN_EXPIRED });
    const unknownUid = await t.app.inject({
      method: 'POST',
      url: '/oauth2/default/interaction/not-an-interaction/passkey-options',
      headers: { cookie: signIn.jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'csrf=x',
    });
    expect(unknownUid.statusCode).toBe(403);
    const garbage = await signIn.passkey({ id: 'x', response: {} });
    expect(garbage.statusCode).toBe(400);
    expect(alertOf(garbage)).toBe(PASSKEY_REFUSED);
    const notJson = await signIn.post({ action: 'passkey', passkeyResponse: '{nope' });
    expect(notJson.statusCode).toBe(400);
  });
});

describe('the pages’ scripts', () => {
  it('serves the library and the page script same-origin, cached, and the CSP holds (no inline script)', async () => {
    const signIn = await openSignIn();
    const csp = String(signIn.page.headers['content-security-policy']);
    const scriptSrc = /(?:^|;)script-src ([^;]*)/.exec(csp)?.[1] ?? '';
    expect(scriptSrc.split(' ')[0]).toBe("'self'");
    expect(scriptSrc).not.toMatch(/unsafe|sha256|nonce/);
    expect(csp).toMatch(/script-src-attr 'none'/);
    const scripts = [...signIn.page.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts).toHaveLength(2);
    for (const [, attributes, content] of scripts) {
      expect(content).toBe('');
      const src = /src="([^"]+)"/.exec(attributes ?? '')?.[1] ?? '';
      expect(src).toMatch(/^\/oauth2\/default\/interaction\/script\/[A-Za-z0-9_-]+$/);
      const script = await t.app.inject(src);
      expect(script.statusCode).toBe(200);
      expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
    const library = await t.app.inject(/src="([^"]+)"/.exec(scripts[0]?.[1] ?? '')?.[1] ?? '');
    expect(library.body).toContain('SimpleWebAuthnBrowser');
    expect((await t.app.inject('/oauth2/default/interaction/script/nothing-here')).statusCode).toBe(404);
  });
});
