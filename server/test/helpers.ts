import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { decodeJwt, generateKeyPair, importJWK, SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { buildApp, type BuildOptions } from '../src/app.js';
import { loadConfig, type AppConfig } from '../src/config/index.js';
import type { PasswordHashing } from '../src/directory/directory.js';
import { pooledSigningKey } from './support/key-material.js';
import { isPostgresProject, testAppDatabase } from './support/postgres.js';
import { copySqliteTemplate } from './support/sqlite-template.js';
import { requireStorage } from './support/storage-kind.js';

export const PORTAL = 'http://localhost:3000';
export const CLIENT_ID = 'account-portal';
export const ALICE = { email: 'alice@example.com', password: 'Wonderland-42' };
export const SAM = { email: 'sam@partner.example', password: 'Federated-42' };
export const SCOPES = 'openid profile email phone';

export interface TestApp {
  app: FastifyInstance;
  config: AppConfig;
  dataDir: string;
  close(): Promise<void>;
}

/** A temp directory per test file; the caller removes it (TestApp.close does). */
export function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'portal-server-test-'));
}

/** Call at a test file's top level: a maker of temp data folders, each removed after its test. */
export function dataDirsPerTest(): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = tempDir();
    dirs.push(dir);
    return dir;
  };
}

/**
 * argon2id's cheapest cost (1 MiB, 1 pass): a test app's passwords (its demo accounts, every test user) hash in
 * about a millisecond instead of production's 30 ms or more. test/production-work.test.ts keeps production's.
 */
export const TEST_PASSWORD_HASHING: PasswordHashing = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

/**
 * Builds the whole app on a fresh database in a temp dir (no shell build, silent logs): on SQLite a copy of the
 * run's migrated template (support/sqlite-template.ts), on PostgreSQL a clone of the template database. Its key
 * ring takes pre-generated keys (support/key-material.ts) and its passwords are hashed cheaply
 * (TEST_PASSWORD_HASHING); `options` may ask for the real ones. `options.now` gives it a fake clock.
 */
export async function startApp(
  env: Record<string, string> = {},
  dataDir = tempDir(),
  options: Omit<BuildOptions, 'logger'> = {},
): Promise<TestApp> {
  requireStorage('startApp (a test app)');
  // The postgres project: a fresh database per data folder (a restart on the same folder finds its data), unless
  // the test names one (two apps over one database).
  const database =
    isPostgresProject() && env.DATABASE_URL === undefined ? await testAppDatabase(dataDir) : undefined;
  const storageEnv: Record<string, string> = database
    ? {
        DATABASE_URL: database.url,
        TOTP_ENCRYPTION_KEY: TEST_TOTP_KEY,
        KEY_RING_ENCRYPTION_KEY: TEST_KEY_RING_KEY,
      }
    : {};
  // A folder the test made (tempDir) starts from the template; one that does not exist yet is the server's to make.
  const folder = env.DATA_DIR ?? dataDir;
  if (!database && env.DATABASE_URL === undefined && existsSync(folder)) {
    copySqliteTemplate(inject('sqliteTemplate'), folder);
  }
  let app: FastifyInstance;
  let config: AppConfig;
  try {
    config = loadConfig({
      DATA_DIR: dataDir,
      SHELL_DIST: path.join(dataDir, 'no-shell-build'),
      LOG_LEVEL: 'silent',
      ...storageEnv,
      ...httpsRemotesFor(env, dataDir),
      ...env,
    });
    // TEST_LOG=debug shows the server's log while a test runs.
    app = await buildApp(config, {
      generateSigningKey: pooledSigningKey,
      passwordHashing: TEST_PASSWORD_HASHING,
      ...options,
      logger: process.env.TEST_LOG ? { level: process.env.TEST_LOG } : false,
    });
  } catch (error) {
    await database?.drop();
    throw error;
  }
  return {
    app,
    config,
    dataDir,
    async close() {
      await app.close();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * An https PUBLIC_URL refuses the development remotes file (http, localhost): a test of an https deployment that
 * names no REMOTES_FILE gets one with an https entry, as a real deployment must.
 */
export function httpsRemotesFor(env: Record<string, string>, dataDir: string): Record<string, string> {
  if (!env.PUBLIC_URL?.startsWith('https://') || env.REMOTES_FILE !== undefined) return {};
  const file = path.join(dataDir, 'https-remotes.json');
  const entry = (name: string) => ({ entry: `https://${name}.cdn.example/remoteEntry.js` });
  writeFileSync(
    file,
    JSON.stringify({
      remotes: {
        remote_profile: entry('profile'),
        remote_password: entry('password'),
        remote_security: entry('security'),
      },
    }),
  );
  return { REMOTES_FILE: file };
}

/** The authenticator-secret key of the postgres project's apps (a shared database needs a configured key). */
export const TEST_TOTP_KEY = '5f'.repeat(32);

/** The key that seals the key ring and the provider's records of the postgres project's apps (KEY_RING_ENCRYPTION_KEY). */
export const TEST_KEY_RING_KEY = '6e'.repeat(32);

/** Two test apps over one database: the same DATA_DIR (SQLite's file; the postgres project's database). */
export async function startAppPair(
  env: Record<string, string> = {},
): Promise<{ a: TestApp; b: TestApp; close(): Promise<void> }> {
  const dataDir = tempDir();
  const a = await startApp(env, dataDir);
  const b = await startApp(env, dataDir).catch(async (error: unknown) => {
    await a.close();
    throw error;
  });
  return {
    a,
    b,
    async close() {
      // b's own close would drop the shared database and folder under a: a's close does both, last.
      await b.app.close();
      await a.close();
    },
  };
}

/**
 * Call at the top of a test file or of a describe: one app for the block, from `start` before its first test,
 * closed after its last. The object returned is filled in from `start`'s result once it has run, so the tests read
 * `t.app` as they would from that result.
 */
export function appForBlock<T extends { close(): Promise<void> }>(start: () => Promise<T>): T {
  const t = {} as T;
  beforeAll(async () => {
    Object.assign(t, await start());
  });
  afterAll(async () => t.close());
  return t;
}

/** The spec's answers are JSON text holding JSON: parse twice. */
export function parseTwice(body: string): unknown {
  const outer: unknown = JSON.parse(body);
  if (typeof outer !== 'string') throw new Error(`expected JSON text, got ${body}`);
  return JSON.parse(outer);
}

/** A minimal cookie jar for inject(): every cookie goes back on every request (paths ignored). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(response: LightMyRequestResponse): void {
    for (const cookie of response.cookies as {
      name: string;
      value: string;
      expires?: Date;
      maxAge?: number;
    }[]) {
      const expired = (cookie.expires && cookie.expires.getTime() < Date.now()) || cookie.maxAge === 0;
      if (expired || cookie.value === '') this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  has(name: string): boolean {
    return this.cookies.has(name);
  }
}

/**
 * okta-auth-js's signOut() against the embedded provider: /v1/logout with the ID token, then its self-submitting
 * form. The form post's answer (303 once signed out).
 */
export async function providerSignOut(
  app: FastifyInstance,
  browser: { jar: CookieJar; tokens: { id_token: string } },
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const page = await app.inject({
    url: `/oauth2/default/v1/logout?${new URLSearchParams({
      id_token_hint: browser.tokens.id_token,
      post_logout_redirect_uri: `${PORTAL}/`,
    }).toString()}`,
    headers: { cookie: browser.jar.header(), ...headers },
  });
  browser.jar.store(page);
  const action = /<form id="op.logoutForm" method="post" action="([^"]+)"/.exec(page.body)?.[1] ?? '';
  const fields = Object.fromEntries(
    [...page.body.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"\/>/g)].map((m) => [m[1], m[2]]),
  ) as Record<string, string>;
  return app.inject({
    method: 'POST',
    url: new URL(action).pathname,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: browser.jar.header(),
      ...headers,
    },
    payload: new URLSearchParams(fields).toString(),
  });
}

export function pkcePair() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export interface AuthorizeOptions {
  origin?: string;
  scope?: string;
  responseMode?: string;
  prompt?: string;
  state?: string;
  challenge?: string;
}

export function authorizeUrl(options: AuthorizeOptions = {}): string {
  const origin = options.origin ?? PORTAL;
  const params = new URLSearchParams({
    client_id: CLIENT_ID,
    response_type: 'code',
    scope: options.scope ?? SCOPES,
    redirect_uri: `${origin}/login/callback`,
    state: options.state ?? randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: options.challenge ?? pkcePair().challenge,
    code_challenge_method: 'S256',
  });
  if (options.responseMode) params.set('response_mode', options.responseMode);
  if (options.prompt) params.set('prompt', options.prompt);
  return `/oauth2/default/v1/authorize?${params.toString()}`;
}

/** inject() sends `Host: localhost:80`, so the provider's absolute URLs name http://localhost. */
function isThisServer(url: URL): boolean {
  return (url.host === 'localhost' || url.host === 'localhost:3000') && url.pathname.startsWith('/oauth2/');
}

function pathOf(location: string): string {
  const url = new URL(location, PORTAL);
  return `${url.pathname}${url.search}`;
}

/** Follows 3xx answers on this server (inject), keeping cookies; stops at the first non-redirect or foreign URL. */
export async function follow(
  app: FastifyInstance,
  jar: CookieJar,
  start: LightMyRequestResponse,
): Promise<LightMyRequestResponse> {
  let response = start;
  for (let hops = 0; hops < 10; hops += 1) {
    jar.store(response);
    const location = response.headers.location;
    if (response.statusCode < 300 || response.statusCode >= 400 || typeof location !== 'string')
      return response;
    if (!isThisServer(new URL(location, PORTAL))) return response;
    response = await app.inject({ method: 'GET', url: pathOf(location), headers: { cookie: jar.header() } });
  }
  throw new Error('too many redirects');
}

/** The hidden fields of a page's form (the sign-in pages' CSRF token), as a browser would post them back. */
export function hiddenFields(html: string): Record<string, string> {
  const unescape = (value: string) =>
    value
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  return Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((match) => [
      unescape(match[1] ?? ''),
      unescape(match[2] ?? ''),
    ]),
  );
}

export interface SignInResult {
  /** The final redirect to the client (redirect_uri with code and state). */
  callback: URL;
  jar: CookieJar;
  verifier: string;
}

/** Drives authorize → sign-in page → form POST → back to authorize → redirect to the client with a code. */
export async function signIn(
  app: FastifyInstance,
  credentials: { email: string; password: string },
  options: AuthorizeOptions = {},
  jar = new CookieJar(),
): Promise<SignInResult> {
  const { verifier, challenge } = pkcePair();
  const page = await follow(
    app,
    jar,
    await app.inject({
      method: 'GET',
      url: authorizeUrl({ ...options, challenge }),
      headers: { cookie: jar.header() },
    }),
  );
  if (page.statusCode !== 200 || !page.body.includes('Sign in')) {
    throw new Error(`expected the sign-in page, got ${page.statusCode}: ${page.body.slice(0, 300)}`);
  }
  const action = /<form method="post" action="([^"]+)"/.exec(page.body)?.[1];
  if (!action) throw new Error('no form on the sign-in page');
  const submitted = await app.inject({
    method: 'POST',
    url: action,
    headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ ...hiddenFields(page.body), ...credentials }).toString(),
  });
  const done = await follow(app, jar, submitted);
  const location = done.headers.location;
  if (typeof location !== 'string') {
    throw new Error(`sign-in did not redirect to the client: ${done.statusCode} ${done.body.slice(0, 300)}`);
  }
  return { callback: new URL(location), jar, verifier };
}

export interface Tokens {
  access_token: string;
  id_token: string;
  refresh_token?: string;
  token_type: string;
  expires_in: number;
  scope: string;
}

export async function exchangeCode(
  app: FastifyInstance,
  { callback, verifier }: SignInResult,
  origin = PORTAL,
): Promise<Tokens> {
  const code = callback.searchParams.get('code');
  if (!code) throw new Error(`no code in ${callback.href}`);
  const response = await app.inject({
    method: 'POST',
    url: '/oauth2/default/v1/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    payload: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: CLIENT_ID,
      code,
      redirect_uri: `${origin}/login/callback`,
      code_verifier: verifier,
    }).toString(),
  });
  if (response.statusCode !== 200)
    throw new Error(`token exchange failed: ${response.statusCode} ${response.body}`);
  return response.json<Tokens>();
}

/** A refresh as okta-auth-js sends it; the answer as it comes (see `refresh` for the tokens). */
export function refreshRequest(app: FastifyInstance, refreshToken: string): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/oauth2/default/v1/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: PORTAL },
    payload: new URLSearchParams({
      grant_type: 'refresh_token',
      client_id: CLIENT_ID,
      // okta-auth-js repeats the scopes when it renews with a refresh token.
      scope: SCOPES,
      refresh_token: refreshToken,
    }).toString(),
  });
}

export async function refresh(app: FastifyInstance, refreshToken: string): Promise<Tokens> {
  const response = await refreshRequest(app, refreshToken);
  if (response.statusCode !== 200) throw new Error(`refresh failed: ${response.statusCode} ${response.body}`);
  return response.json<Tokens>();
}

/** Signs in through the provider's own pages and returns its tokens. */
export async function tokensFor(app: FastifyInstance, credentials: { email: string; password: string }) {
  return exchangeCode(app, await signIn(app, credentials));
}

export function subOf(token: string): string {
  const { sub } = decodeJwt(token);
  if (!sub) throw new Error('token without sub');
  return sub;
}

/** How a minted access token differs from a good one. */
export type TokenFlaw =
  | 'expired'
  | 'wrong-signature'
  | 'wrong-issuer'
  | 'wrong-audience'
  | 'symmetric-alg'
  | 'unsigned'
  | 'other-client'
  | 'no-scope';

let throwawayKey: Promise<CryptoKey> | undefined;

/** An RSA key the server has never seen, one per test file (generating one is slow on 2 cores). */
function throwawayRsaKey(): Promise<CryptoKey> {
  throwawayKey ??= generateKeyPair('RS256').then(({ privateKey }) => privateKey);
  return throwawayKey;
}

export interface MintOptions {
  /** Extra or replacing claims (e.g. `sid`, or `exp` / `iss` / `aud` / `sub` themselves). */
  claims?: JWTPayload & Record<string, unknown>;
  flaw?: TokenFlaw;
}

/** The claims that tie an access token to its sign-in session (`sid`) and grant (`gid`). */
export function sessionClaimsOf(accessToken: string): { sid: string; gid: string } {
  const { sid, gid } = decodeJwt(accessToken);
  if (typeof sid !== 'string' || typeof gid !== 'string') throw new Error('token without sid/gid');
  return { sid, gid };
}

/**
 * An access token shaped like the embedded provider's (RS256, the `kid` of its key, its issuer, `API_AUDIENCE`,
 * `sub` = `uid`, the portal's client, scopes, 10 minutes), signed with the provider's real key. The API accepts
 * it only with the `sid` and `gid` of a live sign-in session (pass `claims: sessionClaimsOf(realToken)`). A
 * `flaw` changes exactly one thing: valid but expired a minute ago, signed by a key the server does not know
 * (under the real `kid`), another issuer, another audience, HS256, no signature at all (alg none), issued to
 * another application of the same provider, or without the required scope.
 */
export async function mintAccessToken(
  app: FastifyInstance,
  sub: string,
  { claims = {}, flaw }: MintOptions = {},
): Promise<string> {
  const keys = app.signingKeys;
  if (!keys) throw new Error('mintAccessToken needs the embedded provider (its signing key)');
  const now = Math.floor(Date.now() / 1000);
  const scopes = flaw === 'no-scope' ? 'profile email' : SCOPES;
  const jwt = new SignJWT({
    uid: sub,
    scope: scopes,
    scp: scopes.split(' '),
    client_id: flaw === 'other-client' ? 'another-app-of-the-org' : CLIENT_ID,
    jti: randomBytes(12).toString('base64url'),
    ...claims,
  })
    .setProtectedHeader({
      alg: flaw === 'symmetric-alg' ? 'HS256' : 'RS256',
      kid: keys.privateJwk.kid,
      typ: 'at+jwt',
    })
    .setIssuedAt(flaw === 'expired' ? now - 3600 : now)
    .setExpirationTime(claims.exp ?? (flaw === 'expired' ? now - 60 : now + 600))
    .setIssuer(
      claims.iss ?? (flaw === 'wrong-issuer' ? 'http://localhost:9999/oauth2/default' : app.config.issuer),
    )
    .setAudience(claims.aud ?? (flaw === 'wrong-audience' ? 'api://another-api' : app.config.API_AUDIENCE))
    .setSubject(claims.sub ?? sub);
  if (flaw === 'unsigned') {
    // alg "none": the same claims, no signature at all.
    const [, payload] = (await jwt.sign(await importJWK(keys.privateJwk, 'RS256'))).split('.');
    const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url');
    return `${header}.${payload}.`;
  }
  if (flaw === 'symmetric-alg')
    return jwt.sign(new TextEncoder().encode('a-shared-secret-of-32-bytes-long!'));
  if (flaw === 'wrong-signature') return jwt.sign(await throwawayRsaKey());
  return jwt.sign(await importJWK(keys.privateJwk, 'RS256'));
}
