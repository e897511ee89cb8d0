/**
 * The preferred 2-step method (issue 22) on the embedded provider's sign-in: the 2-step page leads with the holder's
 * default (email: "Send code by email" first, in a form of its own so Enter in the code field still verifies;
 * passkey: "Use a passkey" first), the other methods stay on the same page, and turning the default off or removing
 * it (the last passkey) brings the fixed order back. The call itself, on both backends and both databases, is
 * contract/preferred-method.test.ts.
 */
import type { LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import { apiCalls, pathOf, type PreferredMethod } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import {
  AUTHENTICATOR_HINT,
  EMAIL_FIRST_WITH_AUTHENTICATOR_HINT,
  PASSKEY_FIRST_HINT,
} from '../src/oidc/interactions/pages.js';
import { USE_PASSKEY } from '../src/oidc/interactions/passkey-pages.js';
import type { CookieJar } from './helpers.js';
import {
  call,
  clockedAppInStep,
  enrolAuthenticator,
  enrolEmail,
  lastCodeFor,
  newUser,
  renewSilently,
  signInSession,
  totp,
  type Session,
} from './security-helpers.js';
import { SoftwareAuthenticator } from './support/software-authenticator.js';

const t = clockedAppInStep();

/** The order of the 2-step page's controls, by what each one is. */
function controlsOf(html: string): string[] {
  const controls: string[] = [];
  const pattern = /<form |<input id="code"|value="send-email"|id="passkey-button"|value="use-recovery-code"/g;
  for (const match of html.matchAll(pattern)) {
    controls.push(
      {
        '<form ': 'form',
        '<input id="code"': 'code',
        'value="send-email"': 'email',
        'id="passkey-button"': 'passkey',
        'value="use-recovery-code"': 'recovery',
      }[match[0]] ?? match[0],
    );
  }
  return controls;
}

const hintOf = (html: string) => /<p class="muted">([^<]+)<\/p>/.exec(html)?.[1]?.replace(/&#39;/g, "'");

const choose = (session: Session, method: PreferredMethod) =>
  call(t.app, 'PUT', pathOf(apiCalls.preferredMethod.path, { sub: session.user.id }), {
    token: session.token,
    body: { method },
  });

/** Signs in with the password and hands the 2-step page to `atSecondStep`, which answers the fields to post. */
async function secondStepOf(
  session: Session,
  atSecondStep: (page: LightMyRequestResponse, round: number) => Promise<Record<string, string | undefined>>,
) {
  let round = 0;
  const signedIn = await signInSession(t.app, session, async (page) => {
    const fields = await atSecondStep(page, round++);
    return Object.fromEntries(
      Object.entries(fields).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
  });
  return decodeJwt(signedIn.tokens.id_token) as { amr?: string[] };
}

/** A new account signed in, with the authenticator app and email set up; its secret. */
async function withBothFactors(): Promise<{ session: Session & { jar: CookieJar }; secret: string }> {
  const session = await signInSession(t.app, await newUser(t.app));
  const secret = await enrolAuthenticator(t, session);
  await enrolEmail(t, session);
  return { session, secret };
}

describe("the sign-in's 2-step page", () => {
  it('the fixed order without a default: the code field, then email', async () => {
    const { session, secret } = await withBothFactors();
    const claims = await secondStepOf(session, async (page) => {
      expect(controlsOf(page.body)).toEqual(['form', 'code', 'email']);
      expect(page.body).toMatch(/id="code"[^>]* autofocus/);
      return { code: totp(secret, t.clock.now) };
    });
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
  });

  it('email by default: "Send code by email" first, in its own form; once sent, the code field leads', async () => {
    const { session } = await withBothFactors();
    expect((await choose(session, 'email')).status).toBe(200);
    const claims = await secondStepOf(session, async (page, round) => {
      if (round === 0) {
        expect(controlsOf(page.body)).toEqual(['form', 'email', 'form', 'code']);
        expect(hintOf(page.body)).toBe(EMAIL_FIRST_WITH_AUTHENTICATOR_HINT);
        // The main button; Enter in the code field presses the code form's first button, Verify.
        expect(page.body).toContain('<button type="submit" name="action" value="send-email">');
        expect(page.body).not.toMatch(/id="code"[^>]* autofocus/);
        return { action: 'send-email' };
      }
      // Sent: the field the code goes into leads, email one click away as before.
      expect(controlsOf(page.body)).toEqual(['form', 'code', 'email']);
      expect(page.body).toContain('role="status"');
      return { code: await lastCodeFor(t.app, session.user.email) };
    });
    expect(claims.amr).toEqual(['pwd', 'otp', 'mfa']);
  });

  it('the authenticator app by default: the fixed order (its code field leads anyway); the app code signs in', async () => {
    const { session, secret } = await withBothFactors();
    expect((await choose(session, 'googleAuth')).status).toBe(200);
    await secondStepOf(session, async (page) => {
      expect(controlsOf(page.body)).toEqual(['form', 'code', 'email']);
      return { code: totp(secret, t.clock.now) };
    });
  });

  it('email turned off: the default is forgotten and the page is back in the fixed order', async () => {
    const { session, secret } = await withBothFactors();
    expect((await choose(session, 'email')).status).toBe(200);
    const off = await call(t.app, 'DELETE', `/api/multifactor/email/${session.user.id}/opt-out`, {
      token: session.token,
    });
    expect(off.status).toBe(200);
    expect(await t.app.storage.preferredMethods.get(session.user.id)).toBeUndefined();
    await secondStepOf(session, async (page) => {
      expect(controlsOf(page.body)).toEqual(['form', 'code']);
      expect(hintOf(page.body)).toBe(AUTHENTICATOR_HINT);
      return { code: totp(secret, t.clock.now) };
    });
  });

  it('with recovery codes and email first, "Use a recovery code" stays in the code form', async () => {
    const { session } = await withBothFactors();
    expect((await choose(session, 'email')).status).toBe(200);
    const generated = await call(
      t.app,
      'POST',
      pathOf(apiCalls.recoveryCodesGenerate.path, { sub: session.user.id }),
      {
        token: session.token,
        body: {},
      },
    );
    expect(generated.status).toBe(200);
    const [code] = generated.data.codes as string[];
    await secondStepOf(session, async (page, round) => {
      if (round === 0) {
        expect(controlsOf(page.body)).toEqual(['form', 'email', 'form', 'code', 'recovery']);
        return { action: 'use-recovery-code' };
      }
      return { action: 'recovery-code', recoveryCode: code ?? '' };
    });
  });
});

describe('passkeys by default', () => {
  it('"Use a passkey" leads as the main button; removing the last passkey forgets the default', async () => {
    const { session, secret } = await withBothFactors();
    const authenticator = new SoftwareAuthenticator({ userId: session.user.id });
    const options = await call(
      t.app,
      'POST',
      pathOf(apiCalls.passkeyRegistrationOptions.path, { sub: session.user.id }),
      {
        token: session.token,
        body: {},
      },
    );
    expect(options.status).toBe(200);
    const registered = await call(
      t.app,
      'POST',
      pathOf(apiCalls.passkeyRegistrationVerify.path, { sub: session.user.id }),
      {
        token: session.token,
        body: { response: authenticator.register(options.data.options as never) },
      },
    );
    expect(registered.status, JSON.stringify(registered.data)).toBe(200);
    // The change ended the page's grant chain: it renews with its cookie, as after any 2-step change.
    session.token = (await renewSilently(t.app, session.jar)).access_token;
    expect((await choose(session, 'passkey')).status).toBe(200);
    const challenge = await call(
      t.app,
      'GET',
      pathOf(apiCalls.stepUpChallenge.path, { sub: session.user.id }),
      {
        token: session.token,
      },
    );
    expect(challenge.data).toMatchObject({
      preferredMethod: 'passkey',
      activeFactorsData: { passkey: { count: 1 } },
    });

    await secondStepOf(session, async (page) => {
      expect(controlsOf(page.body)).toEqual(['form', 'passkey', 'code', 'email']);
      expect(hintOf(page.body)).toBe(PASSKEY_FIRST_HINT);
      expect(page.body).toContain(`<button type="button" id="passkey-button" hidden>${USE_PASSKEY}</button>`);
      return { code: totp(secret, t.clock.now) };
    });

    // The passkey goes (under the page's own step-up grant).
    const removed = await call(
      t.app,
      'DELETE',
      pathOf(apiCalls.passkeyRemove.path, { sub: session.user.id, id: String(registered.data.id) }),
      { token: session.token, body: {} },
    );
    expect(removed.status, JSON.stringify(removed.data)).toBe(200);
    expect(await t.app.storage.preferredMethods.get(session.user.id)).toBeUndefined();
    // Each code is accepted once: the next step's.
    t.clock.advance(30_000);
    await secondStepOf(session, async (page) => {
      expect(controlsOf(page.body)).toEqual(['form', 'code', 'email']);
      return { code: totp(secret, t.clock.now) };
    });
  });
});
