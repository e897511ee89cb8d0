import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { decodeJwt } from 'jose';
import type { User } from '../src/directory/directory.js';
import { totpCodeAt } from '../src/crypto/totp.js';
import { beforeEach } from 'vitest';
import {
  appForBlock,
  authorizeUrl,
  CookieJar,
  exchangeCode,
  follow,
  hiddenFields,
  parseTwice,
  pkcePair,
  PORTAL,
  startApp,
  type TestApp,
  type Tokens,
} from './helpers.js';

/** A test app with a clock the test moves by hand (no sleeps). */
export interface ClockedApp extends TestApp {
  clock: { now: number; advance(ms: number): void };
}

/** A moment mid-way through a 30 s TOTP step, near the real time. */
const midStepNow = () => Math.floor(Date.now() / 30_000) * 30_000 + 10_000;

/**
 * Puts the test clock back in step with the real one. Sign-ins record the real time (the provider's clock) and the
 * first-factor rule compares it with the app's clock, so a test that moved the clock far ahead would make every
 * later sign-in of the file look old. Use it in `beforeEach`; each test works with fresh users.
 */
export function clockInStep(t: ClockedApp): void {
  t.clock.now = midStepNow();
}

export async function startClockedApp(
  env: Record<string, string> = {},
  dataDir?: string,
): Promise<ClockedApp> {
  const clock = {
    // Mid-step, so a test's own steps never straddle a 30 s boundary by accident.
    now: midStepNow(),
    advance(ms: number) {
      clock.now += ms;
    },
  };
  const t = await startApp(env, dataDir, { now: () => clock.now });
  return Object.assign(t, { clock });
}

/** A clocked app for the block (see appForBlock), its clock put back in step before each test (clockInStep). */
export function clockedAppInStep(): ClockedApp {
  const t = appForBlock(() => startClockedApp());
  beforeEach(() => clockInStep(t));
  return t;
}

let counter = 0;

export async function newUser(app: FastifyInstance, options: { federated?: boolean } = {}) {
  counter += 1;
  const password = `Pw-${counter}-Secure-42`;
  const user = await app.directory.createUser({
    email: `user${counter}-${Date.now()}@example.org`,
    password,
    givenName: 'Test',
    familyName: `User ${counter}`,
    country: 'DE',
    isFederated: options.federated ?? false,
  });
  return { user, password };
}

export interface Session {
  user: User;
  password: string;
  token: string;
  sid: string;
}

async function submitForm(
  app: FastifyInstance,
  jar: CookieJar,
  action: string,
  fields: Record<string, string>,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: action,
    headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
}

/** Posts a page's form as a browser would: its hidden fields (the CSRF token) and the given ones. */
function submitPage(
  app: FastifyInstance,
  jar: CookieJar,
  page: LightMyRequestResponse,
  fields: Record<string, string>,
): Promise<LightMyRequestResponse> {
  return submitForm(app, jar, formAction(page.body), { ...hiddenFields(page.body), ...fields });
}

export function formAction(html: string): string {
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error(`no form on the page: ${html.slice(0, 300)}`);
  return action.replace(/&amp;/g, '&');
}

/**
 * Signs in through the provider's pages. When the account has an active factor the second page asks for a
 * verification code: `secondStep` gets that page and answers the form fields to post (called until done).
 */
export async function signInSession(
  app: FastifyInstance,
  account: { user: User; password: string },
  secondStep?: (page: LightMyRequestResponse) => Promise<Record<string, string>> | Record<string, string>,
): Promise<Session & { tokens: Tokens; jar: CookieJar }> {
  const jar = new CookieJar();
  const { verifier, challenge } = pkcePair();
  const first = await follow(
    app,
    jar,
    await app.inject({ method: 'GET', url: authorizeUrl({ challenge }), headers: { cookie: jar.header() } }),
  );
  let response = await follow(
    app,
    jar,
    await submitPage(app, jar, first, {
      email: account.user.email,
      password: account.password,
    }),
  );
  const isRedirect = () => response.statusCode >= 300 && response.statusCode < 400;
  for (let round = 0; round < 5 && !isRedirect(); round += 1) {
    if (!secondStep)
      throw new Error(`expected a redirect, got ${response.statusCode}: ${response.body.slice(0, 300)}`);
    const fields = await secondStep(response);
    response = await follow(app, jar, await submitPage(app, jar, response, fields));
  }
  const location = response.headers.location;
  if (typeof location !== 'string') throw new Error(`sign-in did not finish: ${response.statusCode}`);
  const tokens = await exchangeCode(app, { callback: new URL(location), jar, verifier });
  const { sid } = decodeJwt(tokens.access_token) as { sid?: string };
  return { ...account, token: tokens.access_token, sid: sid ?? '', tokens, jar };
}

/**
 * What the page does when its grant has ended (after a password or 2-step change): a silent authorize
 * (prompt=none) with the provider session's cookie, then the code exchange. Throws when a sign-in page or an
 * error comes back instead of a code.
 */
export async function renewSilently(app: FastifyInstance, jar: CookieJar): Promise<Tokens> {
  const { verifier, challenge } = pkcePair();
  const response = await follow(
    app,
    jar,
    await app.inject({
      method: 'GET',
      url: authorizeUrl({ challenge, prompt: 'none' }),
      headers: { cookie: jar.header() },
    }),
  );
  const location = new URL(String(response.headers.location), PORTAL);
  if (!location.searchParams.get('code')) {
    throw new Error(`silent renewal failed: ${response.statusCode} ${location.href}`);
  }
  return exchangeCode(app, { callback: location, jar, verifier });
}

/** A session whose page renews silently (it has its provider cookie): its token is replaced after a change. */
async function renewAfterChange(app: FastifyInstance, session: Session): Promise<void> {
  const jar = (session as Session & { jar?: CookieJar }).jar;
  if (!jar) return;
  const tokens = await renewSilently(app, jar);
  session.token = tokens.access_token;
  const withTokens = session as Session & { tokens?: Tokens };
  if (withTokens.tokens) withTokens.tokens = tokens;
}

export interface CallOptions {
  token: string;
  body?: unknown;
}

export async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  { token, body }: CallOptions,
) {
  const response = await app.inject({
    method,
    url,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
  const data: unknown =
    response.statusCode < 300 && response.body !== '' ? parseTwice(response.body) : response.json();
  return { status: response.statusCode, data: data as Record<string, unknown>, response };
}

/** The newest code mailed to this address (notices about the account go to the same mailbox). */
export async function lastCodeFor(app: FastifyInstance, email: string): Promise<string> {
  const response = await app.inject('/dev/mailbox/messages');
  const messages = response.json<{ to: string; text: string }[]>();
  const message = messages.find(
    (entry) => entry.to === email && /verification code is \d{6}/.test(entry.text),
  );
  const code = message && /verification code is (\d{6})\b/.exec(message.text)?.[1];
  if (!code) throw new Error(`no code mailed to ${email}`);
  return code;
}

export const totp = (secret: string, at: number) => totpCodeAt(secret, at);

/** Enrols and activates the authenticator app for a session; returns the secret. */
export async function enrolAuthenticator(t: ClockedApp, session: Session): Promise<string> {
  const sub = session.user.id;
  const enrolled = await call(t.app, 'POST', `/api/multifactor/googleauth/${sub}/enroll`, {
    token: session.token,
    body: {},
  });
  if (enrolled.status !== 200) throw new Error(`enroll: ${enrolled.status} ${JSON.stringify(enrolled.data)}`);
  const secret = enrolled.data.secret as string;
  const activated = await call(t.app, 'POST', `/api/multifactor/googleauth/${sub}/activate`, {
    token: session.token,
    body: { code: totp(secret, t.clock.now) },
  });
  if (activated.status !== 200)
    throw new Error(`activate: ${activated.status} ${JSON.stringify(activated.data)}`);
  // The activation ended every grant of the account, the caller's too: the page renews with its cookie.
  await renewAfterChange(t.app, session);
  // The next code must come from a later step (replay protection).
  t.clock.advance(30_000);
  return secret;
}

/** Enrols and activates email for a session (the code comes from the mailbox). */
export async function enrolEmail(t: ClockedApp, session: Session): Promise<void> {
  const sub = session.user.id;
  const sent = await call(t.app, 'POST', `/api/multifactor/email/${sub}/enroll`, {
    token: session.token,
    body: {},
  });
  if (sent.status !== 200) throw new Error(`email enroll: ${sent.status} ${JSON.stringify(sent.data)}`);
  const code = await lastCodeFor(t.app, session.user.email);
  const activated = await call(t.app, 'POST', `/api/multifactor/email/${sub}/activate`, {
    token: session.token,
    body: { code },
  });
  if (activated.status !== 200) throw new Error(`email activate: ${activated.status}`);
  await renewAfterChange(t.app, session);
  // Let the email-send throttle pass for the test's next send.
  t.clock.advance(30_000);
}
