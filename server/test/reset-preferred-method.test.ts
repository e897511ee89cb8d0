/**
 * The preferred 2-step method (issue 22) on the "Forgot password" link's code step: the page leads with the
 * holder's default when it offers it, as the sign-in's 2-step page does (preferred-method.test.ts). Only a passkey
 * can lead there: the authenticator app's code field leads anyway, and email is never asked (the link proves the
 * mailbox), so those defaults keep the fixed order.
 */
import type { LightMyRequestResponse } from 'fastify';
import { apiCalls, pathOf, type PreferredMethod } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { AUTHENTICATOR_HINT } from '../src/oidc/interactions/pages.js';
import { USE_PASSKEY } from '../src/oidc/interactions/passkey-pages.js';
import { PASSKEY_FIRST_RESET_HINT } from '../src/oidc/interactions/reset-pages.js';
import { RESET_MAIL_SUBJECT } from '../src/password/reset-mails.js';
import {
  call,
  clockedAppInStep,
  enrolAuthenticator,
  enrolEmail,
  newUser,
  renewSilently,
  signInSession,
  totp,
  type Session,
} from './security-helpers.js';
import { SoftwareAuthenticator } from './support/software-authenticator.js';

const t = clockedAppInStep();
const RESET = '/oauth2/default/reset-password';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

// Each request from its own address, so the per-address limits stay out of the way.
let addresses = 0;
const nextAddress = () => {
  addresses += 1;
  return `10.30.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
};

/** Asks for a link and reads its token from the mail. */
async function newLink(email: string): Promise<string> {
  const asked = await t.app.inject({
    method: 'POST',
    url: RESET,
    remoteAddress: nextAddress(),
    headers: FORM,
    payload: new URLSearchParams({ email }).toString(),
  });
  expect(asked.statusCode).toBe(200);
  await t.app.passwordResets?.idle();
  await t.app.notifier.drain();
  const mailbox = t.app.mailer as unknown as {
    list(limit?: number): Promise<{ to: string; subject: string; text: string }[]>;
  };
  const [newest] = (await mailbox.list(1000)).filter(
    (mail) => mail.to === email && mail.subject === RESET_MAIL_SUBJECT,
  );
  const token = /reset-password\/link\?token=([A-Za-z0-9_-]+)/.exec(newest?.text ?? '')?.[1];
  if (!token) throw new Error(`no reset link mailed to ${email}`);
  return token;
}

const openLink = (token: string) =>
  t.app.inject({ method: 'GET', url: `${RESET}/link?token=${token}`, remoteAddress: nextAddress() });

const postCode = (token: string, code: string) =>
  t.app.inject({
    method: 'POST',
    url: `${RESET}/verify`,
    remoteAddress: nextAddress(),
    headers: FORM,
    payload: new URLSearchParams({ csrf: token, code }).toString(),
  });

/** The order of the code step's controls, by what each one is. */
function controlsOf(page: LightMyRequestResponse): string[] {
  const names: Record<string, string> = {
    '<form ': 'form',
    '<input id="code"': 'code',
    'value="send-email"': 'email',
    'id="passkey-button"': 'passkey',
  };
  return [...page.body.matchAll(/<form |<input id="code"|value="send-email"|id="passkey-button"/g)].map(
    (match) => names[match[0]] ?? match[0],
  );
}

const hintOf = (page: LightMyRequestResponse) =>
  /<p class="muted">([^<]+)<\/p>/.exec(page.body)?.[1]?.replace(/&#39;/g, "'");

const choose = (session: Session, method: PreferredMethod) =>
  call(t.app, 'PUT', pathOf(apiCalls.preferredMethod.path, { sub: session.user.id }), {
    token: session.token,
    body: { method },
  });

/** A new account with the authenticator app, email and a passkey; its session and the app's secret. */
async function withEveryMethod(): Promise<{ session: Session; secret: string }> {
  const session = await signInSession(t.app, await newUser(t.app));
  const secret = await enrolAuthenticator(t, session);
  await enrolEmail(t, session);
  const authenticator = new SoftwareAuthenticator({ userId: session.user.id });
  const options = await call(
    t.app,
    'POST',
    pathOf(apiCalls.passkeyRegistrationOptions.path, { sub: session.user.id }),
    { token: session.token, body: {} },
  );
  expect(options.status).toBe(200);
  const registered = await call(
    t.app,
    'POST',
    pathOf(apiCalls.passkeyRegistrationVerify.path, { sub: session.user.id }),
    { token: session.token, body: { response: authenticator.register(options.data.options as never) } },
  );
  expect(registered.status, JSON.stringify(registered.data)).toBe(200);
  // The change ended the page's grant chain: it renews with its cookie, as after any 2-step change.
  session.token = (await renewSilently(t.app, session.jar)).access_token;
  return { session, secret };
}

describe("the reset link's code step with a default method", () => {
  it('a passkey by default leads as the main button, also after a wrong code; the app code still resets', async () => {
    const { session, secret } = await withEveryMethod();
    expect((await choose(session, 'passkey')).status).toBe(200);
    const token = await newLink(session.user.email);

    const opened = await openLink(token);
    expect(opened.statusCode).toBe(200);
    expect(controlsOf(opened)).toEqual(['form', 'passkey', 'code']);
    expect(hintOf(opened)).toBe(PASSKEY_FIRST_RESET_HINT);
    expect(opened.body).toContain(`<button type="button" id="passkey-button" hidden>${USE_PASSKEY}</button>`);
    // The code field does not take the focus from the leading passkey.
    expect(opened.body).not.toMatch(/<input id="code"[^>]*autofocus/);

    const wrong = await postCode(token, '000000');
    expect(wrong.statusCode).toBe(400);
    expect(controlsOf(wrong)).toEqual(['form', 'passkey', 'code']);

    const right = await postCode(token, totp(secret, t.clock.now));
    expect(right.statusCode).toBe(200);
    expect(right.body).toContain('<input id="new-password"');
  });

  it.each<[string, PreferredMethod | undefined]>([
    ['no default', undefined],
    ['the authenticator app by default (its code field leads anyway)', 'googleAuth'],
    ['email by default (never asked here: the link proves the mailbox)', 'email'],
  ])('the fixed order with %s: the code field, then the passkey', async (_case, method) => {
    const { session } = await withEveryMethod();
    if (method) expect((await choose(session, method)).status).toBe(200);
    const opened = await openLink(await newLink(session.user.email));

    expect(opened.statusCode).toBe(200);
    expect(controlsOf(opened)).toEqual(['form', 'code', 'passkey']);
    expect(hintOf(opened)).toBe(AUTHENTICATOR_HINT);
    expect(opened.body).toContain(
      `<button type="button" id="passkey-button" class="secondary" hidden>${USE_PASSKEY}</button>`,
    );
  });
});
