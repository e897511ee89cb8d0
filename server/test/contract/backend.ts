/**
 * The contract suite's backend fixture: the same server tests run against each identity backend, chosen by
 * PORTAL_TEST_IDENTITY (vitest.config.ts: the `sqlite` and `postgres` projects run them embedded, the `okta`
 * project against the Okta org stand-in). A test sees only this interface: it makes accounts at the identity
 * source, signs them in, calls the API, and reads back what the source holds, never knowing which backend answers.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { decodeJwt } from 'jose';
import { Secret, TOTP } from 'otpauth';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import type { BuildOptions } from '../../src/app.js';
import { totpCodeAt } from '../../src/crypto/totp.js';
import { hashedId } from '../../src/storage/provider.js';
import { openPayload, sealPayload } from '../../src/storage/sealing.js';
import { type CookieJar, startApp, type TestApp } from '../helpers.js';
import { inject } from './inject.js';
import { renewSilently, signInSession } from '../security-helpers.js';
import {
  DEFAULT_PASSWORD_POLICY,
  requirementsText,
  type OktaOrg,
  type OktaPasswordPolicy,
} from '../support/okta-org/index.js';
import { useOktaOrg } from '../support/okta-org/vitest.js';
import { oktaAuthorizationServer, startOktaPortal } from '../support/okta-portal.js';
import { startRealOrgBackend } from './real-org.js';

export type IdentityKind = 'embedded' | 'okta';

/**
 * From process.env.PORTAL_TEST_IDENTITY: 'okta' (the stand-in) and 'okta-org' (a real org: `pnpm okta:check`,
 * real-org.ts) are both the okta backend; anything else is embedded.
 */
export const IDENTITY: IdentityKind = ['okta', 'okta-org'].includes(process.env.PORTAL_TEST_IDENTITY ?? '')
  ? 'okta'
  : 'embedded';
const AGAINST_REAL_ORG = process.env.PORTAL_TEST_IDENTITY === 'okta-org';

export interface ContractAccount {
  /** The {sub} of the API paths (the directory's sub / Okta's user id = uid). */
  sub: string;
  /** The login. */
  email: string;
  /** The current password at the identity source. */
  password: string;
  /** An access token from a sign-in "just now". */
  token: string;
}

export interface ContractProfile {
  firstName?: string;
  lastName?: string;
  country?: string;
}

export interface ContractAnswer {
  status: number;
  // The API's answers are whatever the contract says; tests assert their shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

export interface ContractBackend {
  readonly kind: IdentityKind;
  /** The portal, built in-process; calls use inject(). */
  readonly app: FastifyInstance;
  /** The portal's clock (throttles, grants, caches). */
  readonly clock: { now(): number; advance(ms: number): void };
  /**
   * A fresh user at the identity source (directory row / org user), signed in now. Default profile: firstName
   * 'Ada', lastName 'Lovelace', country 'GB'. federated: embedded: the directory's federated flag; okta: a user of
   * provider FEDERATION.
   */
  newAccount(options?: { federated?: boolean; profile?: ContractProfile }): Promise<ContractAccount>;
  /**
   * Another sign-in of the same account (another session / jti, so its own step-up grant); authTimeAgoMs: a
   * sign-in that long ago (default 0). Like a token Okta issues, it costs no 2-step code and gives no grant.
   */
  signIn(account: ContractAccount, options?: { authTimeAgoMs?: number }): Promise<string>;
  /** An API call; body JSON; 2xx bodies through parseTwice (the spec's JSON text holding JSON). */
  call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    token: string | undefined,
    body?: unknown,
  ): Promise<ContractAnswer>;
  /** What the identity source holds now (never through the portal's API). */
  profileAtSource(
    account: ContractAccount,
  ): Promise<{ firstName: string; lastName: string; country: string; email: string }>;
  /** Whether the identity source accepts this password for the account. */
  passwordAccepted(account: ContractAccount, password: string): Promise<boolean>;
  /** The last email code the source "sent" to the account (embedded: the mailbox; okta: the stand-in's read-back). */
  lastEmailCode(account: ContractAccount): Promise<string>;
  /**
   * A TOTP code of the shared secret the enrol call returned, offsetSteps 30 s steps from what the verifier
   * considers now (embedded: the portal's clock; okta: the stand-in's real clock).
   */
  totp(secret: string, offsetSteps?: number): string;
  /** The account's factors at the source (embedded: INACTIVE = set up but turned off; Okta has no such state). */
  factorsAtSource(account: ContractAccount): Promise<Array<{ kind: 'googleAuth' | 'email'; status: string }>>;
  /** Rows of the portal's own `users` table (in okta mode this must stay 0 after every test). */
  localUserRows(): Promise<number>;
  /**
   * The source's own password policy beyond the portal's: a new password the portal's rules accept but the source
   * refuses, and the text it refuses it with (the page's dialog shows it). Undefined where the source has no rules
   * of its own (embedded: the portal's policy is the directory's).
   */
  readonly sourcePasswordPolicy: { refused: string; error: string } | undefined;
}

export interface ContractBackendOptions {
  /** Extra settings of the portal (e.g. a throttle's limits). */
  env?: Record<string, string>;
}

/** The org's password policy in okta mode: stricter than the portal's (a symbol), so its own refusal shows. */
const ORG_PASSWORD_POLICY: OktaPasswordPolicy = { ...DEFAULT_PASSWORD_POLICY, minSymbol: 1 };
/** Passes the portal's rules, not the org's (no symbol). */
const WITHOUT_SYMBOL = 'NoSymbolHere42';

let accounts = 0;
/** A login no other account of the run has (the parts of a login may not appear in a password: kept short). */
function freshLogin(domain: string): string {
  accounts += 1;
  return `ada${accounts}x${randomBytes(3).toString('hex')}@${domain}`;
}
/** Meets the portal's rules and the org's stricter policy; shares no 3 characters with the logins above. */
const freshPassword = () => `Pw-${randomBytes(4).toString('hex')}-Secure-7!`;

const DEFAULT_PROFILE = { firstName: 'Ada', lastName: 'Lovelace', country: 'GB' };

const localUserRows = async (app: FastifyInstance) => {
  const row = await app.storage.sql.get<{ n: number }>('SELECT count(*) AS n FROM users');
  return Number(row?.n ?? 0);
};

/** A clock the test moves by hand (never slept on). */
function handClock(start: () => number) {
  let now = start();
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
    reset() {
      now = start();
    },
  };
}

/**
 * A moment 10 s into a 30 s TOTP step, so a test's steps never straddle one by accident; never after the real time
 * (at most 30 s before it), since sign-ins record the real time: a clock ahead of them would make a sign-in look
 * older than it is (a test that moves the clock by a whole 5-minute window would find it stale).
 */
const midStepNow = () => Math.floor((Date.now() - 10_000) / 30_000) * 30_000 + 10_000;

type Started = { backend: ContractBackend; close(): Promise<void>; resetClock(): void };

async function startEmbedded(options: ContractBackendOptions): Promise<Started> {
  // Sign-ins record the real time and the first-factor rule compares it with this clock: kept near the real one.
  const clock = handClock(midStepNow);
  const t: TestApp = await startApp(options.env ?? {}, undefined, { now: clock.now });
  const { app } = t;
  const sql = app.storage.sql;

  /**
   * Signs in through the provider's pages. Like a token Okta issues, the fixture's sign-in costs no 2-step code
   * (so no code step, send throttle or wrong-code count is used up): the account's active factors are set aside
   * for the sign-in and put back after it.
   */
  /**
   * Each signed-in token's page: its provider cookies and the token it holds now. A password or 2-step change
   * ends every grant of the account, the caller's too (issue 18); the page then renews silently with its session
   * cookie and calls again, as the shell does, so a test goes on with the token its sign-in returned. A page
   * whose session ended gets its 401.
   */
  const pages = new Map<string, { jar: CookieJar; current: string }>();

  async function callAsPage(
    method: Parameters<ContractBackend['call']>[0],
    url: string,
    token: string | undefined,
    body: unknown,
  ): Promise<ContractAnswer> {
    const page = token === undefined ? undefined : pages.get(token);
    const answer = await inject(app, method, url, page?.current ?? token, body);
    if (!page || answer.status !== 401) return answer;
    const renewed = await renewSilently(app, page.jar).catch(() => undefined);
    if (!renewed) return answer;
    page.current = renewed.access_token;
    return inject(app, method, url, page.current, body);
  }

  async function signIn(account: ContractAccount, authTimeAgoMs = 0): Promise<string> {
    const active = await sql.all<{ type: string }>(
      "SELECT type FROM user_factors WHERE user_id = ? AND status = 'ACTIVE'",
      [account.sub],
    );
    const setStatus = async (status: string) => {
      for (const { type } of active) {
        await sql.run('UPDATE user_factors SET status = ? WHERE user_id = ? AND type = ?', [
          status,
          account.sub,
          type,
        ]);
      }
    };
    await setStatus('INACTIVE');
    let token: string;
    try {
      const session = await signInSession(app, {
        user: { email: account.email } as Parameters<typeof signInSession>[1]['user'],
        password: account.password,
      });
      token = session.token;
      pages.set(token, { jar: session.jar, current: token });
    } finally {
      await setStatus('ACTIVE');
    }
    if (authTimeAgoMs > 0) {
      // The provider's session keeps when it signed in (loginTs, seconds): moved back as a sign-in that long ago.
      const { sid } = decodeJwt(token);
      if (typeof sid !== 'string') throw new Error('an embedded access token without sid');
      // The uid is kept hashed and the payload sealed (keys/at-rest.ts): open it, move loginTs, seal it again.
      const row = await sql.get<{ id: string; payload: string }>(
        "SELECT id, payload FROM oidc_payloads WHERE model = 'Session' AND account_id = ? AND uid = ?",
        [account.sub, hashedId(sid)],
      );
      if (!row) throw new Error(`no provider session ${sid}`);
      const box = app.atRestSealing.providerRecords;
      const payload = openPayload<{ loginTs: number }>(box, 'Session', row.id, row.payload);
      payload.loginTs -= Math.ceil(authTimeAgoMs / 1000);
      await sql.run("UPDATE oidc_payloads SET payload = ? WHERE model = 'Session' AND id = ?", [
        sealPayload(box, 'Session', row.id, payload),
        row.id,
      ]);
    }
    return token;
  }

  const backend: ContractBackend = {
    kind: 'embedded',
    app,
    clock,
    sourcePasswordPolicy: undefined,
    async newAccount({ federated = false, profile = {} } = {}) {
      const wanted = { ...DEFAULT_PROFILE, ...profile };
      const password = freshPassword();
      const user = await app.directory.createUser({
        email: freshLogin('example.org'),
        password,
        givenName: wanted.firstName,
        familyName: wanted.lastName,
        country: wanted.country,
        isFederated: federated,
      });
      const account = { sub: user.id, email: user.email, password, token: '' };
      account.token = await signIn(account);
      return account;
    },
    signIn: (account, { authTimeAgoMs = 0 } = {}) => signIn(account, authTimeAgoMs),
    call: callAsPage,
    async profileAtSource(account) {
      const user = await app.directory.findById(account.sub);
      if (!user) throw new Error(`no directory user ${account.sub}`);
      return {
        firstName: user.givenName,
        lastName: user.familyName,
        country: user.country,
        email: user.email,
      };
    },
    async passwordAccepted(account, password) {
      return (await app.directory.verifyPassword(account.email, password)) !== undefined;
    },
    async lastEmailCode(account) {
      // The mailbox keeps the newest first; notices about the account go to the same address.
      const messages = (await app.inject('/dev/mailbox/messages')).json<{ to: string; text: string }[]>();
      for (const message of messages) {
        if (message.to !== account.email) continue;
        const code = /verification code is (\d{6})\b/.exec(message.text)?.[1];
        if (code) return code;
      }
      throw new Error(`no code mailed to ${account.email}`);
    },
    totp: (secret, offsetSteps = 0) => totpCodeAt(secret, clock.now() + offsetSteps * 30_000),
    async factorsAtSource(account) {
      return (await app.identity.listFactors(account.sub)).map((factor) => ({
        kind: factor.type,
        status: factor.status,
      }));
    },
    localUserRows: () => localUserRows(app),
  };
  return { backend, close: () => t.close(), resetClock: () => clock.reset() };
}

function startOkta(
  org: () => OktaOrg,
  server: ReturnType<typeof oktaAuthorizationServer>,
  options: ContractBackendOptions,
): () => Promise<Started> {
  return async () => {
    // The stand-in checks TOTP codes and auth_time against the real clock: the portal's starts there.
    const clock = handClock(() => Date.now());
    const buildOptions: Omit<BuildOptions, 'logger'> = { now: clock.now };
    // The service app also reads the System Log (the account's activity in Okta mode).
    const env = { OKTA_SCOPES: 'okta.users.read okta.users.manage okta.logs.read', ...options.env };
    const t = await startOktaPortal(org(), env, buildOptions);
    const { app } = t;
    const token = (account: ContractAccount, authTimeAgoMs = 0) =>
      server.token(
        org(),
        { id: account.sub, login: account.email },
        { auth_time: Math.floor((Date.now() - authTimeAgoMs) / 1000) },
      );
    const userOf = (account: ContractAccount) => {
      const user = org().user(account.sub);
      if (!user) throw new Error(`no Okta user ${account.sub}`);
      return user;
    };

    const backend: ContractBackend = {
      kind: 'okta',
      app,
      clock,
      sourcePasswordPolicy: { refused: WITHOUT_SYMBOL, error: requirementsText(ORG_PASSWORD_POLICY) },
      async newAccount({ federated = false, profile = {} } = {}) {
        const wanted = { ...DEFAULT_PROFILE, ...profile };
        const login = freshLogin('customer.example');
        const password = freshPassword();
        const user = org().addUser({
          profile: {
            login,
            email: login,
            firstName: wanted.firstName,
            lastName: wanted.lastName,
            countryCode: wanted.country,
          },
          ...(federated ? { provider: { type: 'FEDERATION' as const, name: 'FEDERATION' } } : { password }),
        });
        const account = { sub: user.id, email: login, password, token: '' };
        account.token = await token(account);
        return account;
      },
      signIn: (account, { authTimeAgoMs = 0 } = {}) => token(account, authTimeAgoMs),
      call: (method, url, bearer, body) => inject(app, method, url, bearer, body),
      async profileAtSource(account) {
        const { profile } = userOf(account);
        const text = (name: string) => (typeof profile[name] === 'string' ? (profile[name] as string) : '');
        return {
          firstName: text('firstName'),
          lastName: text('lastName'),
          country: text('countryCode'),
          email: text('email'),
        };
      },
      passwordAccepted: async (account, password) => org().passwordMatches(account.sub, password),
      lastEmailCode: async (account) => org().lastEmailCode(account.sub),
      totp: (secret, offsetSteps = 0) =>
        TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offsetSteps * 30_000 }),
      async factorsAtSource(account) {
        return userOf(account).factors.map((factor) => ({
          kind: factor.factorType === 'email' ? ('email' as const) : ('googleAuth' as const),
          status: factor.status,
        }));
      },
      localUserRows: () => localUserRows(app),
    };
    return { backend, close: () => t.close(), resetClock: () => clock.reset() };
  };
}

/**
 * Call at a test file's top level. beforeAll starts the portal for this run's IDENTITY (okta: the org stand-in,
 * whose recorded violations fail the test, and startOktaPortal), afterAll closes it, beforeEach resets the clock;
 * afterEach in okta mode expects localUserRows() === 0 (nothing Okta holds is written locally).
 */
export function useContractBackend(options: ContractBackendOptions = {}): () => ContractBackend {
  let started: Started | undefined;
  let start: () => Promise<Started> = () => startEmbedded(options);
  if (AGAINST_REAL_ORG) {
    start = () => startRealOrgBackend(options);
  } else if (IDENTITY === 'okta') {
    const server = oktaAuthorizationServer();
    const org = useOktaOrg({ jwks: server.jwks, passwordPolicy: ORG_PASSWORD_POLICY });
    start = startOkta(org, server, options);
  }
  beforeAll(async () => {
    started = await start();
  });
  beforeEach(() => {
    started?.resetClock();
  });
  afterEach(async () => {
    if (started?.backend.kind === 'okta') {
      expect(await started.backend.localUserRows(), 'users rows written in Okta mode').toBe(0);
    }
  });
  afterAll(async () => {
    await started?.close();
  });
  return () => {
    if (!started)
      throw new Error('the contract backend is not started (useContractBackend runs in beforeAll)');
    return started.backend;
  };
}
