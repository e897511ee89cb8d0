/**
 * The contract suite's backend against a REAL Okta org (`pnpm okta:check`, scripts/okta-check.mjs): the portal in
 * Okta mode with the org's own service app, throwaway users created through the Management API and deleted
 * afterwards, and sign-ins through the org's default authorization server with the Resource Owner Password grant
 * of a native app made for the check (the browser's sign-in page cannot be driven from here). What only the
 * stand-in can do (read back the email code Okta sent, sign in in the past) throws NotCheckableAgainstRealOrg,
 * which the check reports as "not checkable", never as passed or failed.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { envSchema } from '../../src/config/env.js';
import { oktaSettingsOf, type OktaEnv } from '../../src/config/okta.js';
import { OktaOrg } from '../../src/identity/okta/client.js';
import { startApp, tempDir, type TestApp } from '../helpers.js';
import { inject } from './inject.js';
import type { ContractAccount, ContractBackend } from './backend.js';

/** The check's own settings; the service app's are the portal's (OKTA_CLIENT_ID, OKTA_PRIVATE_KEY…). */
export const REAL_ORG_SETTINGS = [
  'OKTA_CHECK_DOMAIN',
  'OKTA_CHECK_CLIENT_ID',
  'OKTA_CHECK_PASSWORD_CLIENT_ID',
] as const;

/** Marks a test that needs a power only the stand-in has; its message starts with this tag. */
export const NOT_CHECKABLE_TAG = '[not checkable against a real org]';

export class NotCheckableAgainstRealOrg extends Error {
  override readonly name = 'NotCheckableAgainstRealOrg';
  constructor(what: string) {
    super(`${NOT_CHECKABLE_TAG} ${what}`);
  }
}

export interface RealOrgConfig {
  /** https://{yourOktaDomain} */
  domain: string;
  /** The portal's SPA app (the settings' ClientId). */
  portalClientId: string;
  /** A native app with the Resource Owner Password grant, for the check's sign-ins (added to API_CLIENT_IDS). */
  passwordClientId: string;
  passwordClientSecret: string | undefined;
  /** The portal's Okta settings as given (service app or API token, OKTA_FEDERATED_ATTRIBUTE). */
  oktaEnv: Record<string, string>;
}

/** The check's configuration from the environment; throws naming every missing setting. */
export function realOrgConfigOf(env: NodeJS.ProcessEnv): RealOrgConfig {
  const missing = REAL_ORG_SETTINGS.filter((name) => !env[name]);
  if (missing.length > 0) throw new Error(`okta:check needs ${missing.join(', ')}`);
  const oktaEnv = Object.fromEntries(
    Object.entries(env).filter(
      (entry): entry is [string, string] =>
        entry[0].startsWith('OKTA_') && !entry[0].startsWith('OKTA_CHECK_') && !!entry[1],
    ),
  );
  // The same checks the portal makes at start-up: a wrong key or a missing client id is named now.
  oktaSettingsOf(oktaEnvOf(oktaEnv));
  return {
    domain: new URL(env.OKTA_CHECK_DOMAIN as string).origin,
    portalClientId: env.OKTA_CHECK_CLIENT_ID as string,
    passwordClientId: env.OKTA_CHECK_PASSWORD_CLIENT_ID as string,
    passwordClientSecret: env.OKTA_CHECK_PASSWORD_CLIENT_SECRET || undefined,
    oktaEnv,
  };
}

/** The OKTA_* settings parsed by the portal's own schema (defaults included, e.g. OKTA_SCOPES). */
function oktaEnvOf(given: Record<string, string>): OktaEnv {
  return envSchema
    .pick({
      OKTA_CLIENT_ID: true,
      OKTA_PRIVATE_KEY: true,
      OKTA_PRIVATE_KEY_FILE: true,
      OKTA_KEY_ID: true,
      OKTA_SCOPES: true,
      OKTA_API_TOKEN: true,
      OKTA_FEDERATED_ATTRIBUTE: true,
    })
    .parse(given);
}

export interface RealOrgUser {
  id: string;
  login: string;
  password: string;
}

/**
 * The org as the check uses it: the Management API with the portal's own service app (users are created and
 * deleted with it, so it needs okta.users.manage, as the portal does) and the password grant for sign-ins.
 */
export class RealOrg {
  private readonly management: OktaOrg;
  private readonly created: string[] = [];

  constructor(readonly config: RealOrgConfig) {
    const settings = oktaSettingsOf(oktaEnvOf(config.oktaEnv));
    this.management = new OktaOrg({ orgUrl: config.domain, credentials: settings.credentials });
  }

  get federatedAttribute(): string | undefined {
    return this.config.oktaEnv.OKTA_FEDERATED_ATTRIBUTE;
  }

  /** An active user with a password, named so an operator can tell it is the check's (and deleted by close()). */
  async createUser(
    profile: { firstName: string; lastName: string; countryCode: string },
    options: { federated?: boolean } = {},
  ): Promise<RealOrgUser> {
    const attribute = this.federatedAttribute;
    if (options.federated && attribute === undefined) {
      throw new NotCheckableAgainstRealOrg(
        'a federated user (an API cannot create one; set OKTA_FEDERATED_ATTRIBUTE to check the attribute rule)',
      );
    }
    // Short, as the fixture's own logins (backend.ts): the portal refuses a password sharing 3 characters with a
    // part of the email, so a login like portal-check-… made the contract's 'Short-1' fail for 'ort', not length.
    const login = `chk-${randomBytes(4).toString('hex')}@example.com`;
    // Meets Okta's default policy and the portal's own rules.
    const password = `Pc-${randomBytes(9).toString('base64url')}-7a!`;
    const user = await this.management.call('createUser', 'once', (client) =>
      client.userApi.createUser({
        activate: true,
        body: {
          profile: {
            ...profile,
            login,
            email: login,
            ...(options.federated && attribute ? { [attribute]: true } : {}),
          },
          credentials: { password: { value: password } },
        },
      }),
    );
    if (!user.id) throw new Error('Okta created a user without an id');
    this.created.push(user.id);
    return { id: user.id, login, password };
  }

  async profileOf(userId: string): Promise<Record<string, unknown>> {
    const user = await this.management.call('getUser', 'repeatable', (client) =>
      client.userApi.getUser({ userId }),
    );
    return (user.profile ?? {}) as Record<string, unknown>;
  }

  async factorsOf(userId: string): Promise<Array<{ kind: 'googleAuth' | 'email'; status: string }>> {
    const factors: Array<{ kind: 'googleAuth' | 'email'; status: string }> = [];
    await this.management.call('listFactors', 'repeatable', async (client) => {
      for await (const factor of await client.userFactorApi.listFactors({ userId })) {
        if (!factor) continue;
        const kind =
          factor.factorType === 'token:software:totp'
            ? 'googleAuth'
            : factor.factorType === 'email'
              ? 'email'
              : undefined;
        if (kind) factors.push({ kind, status: String(factor.status) });
      }
    });
    return factors;
  }

  /** A sign-in now (Resource Owner Password grant): the access token, or undefined when Okta refuses the password. */
  async signIn(login: string, password: string): Promise<string | undefined> {
    const form = new URLSearchParams({
      grant_type: 'password',
      username: login,
      password,
      scope: 'openid profile email',
      client_id: this.config.passwordClientId,
      ...(this.config.passwordClientSecret ? { client_secret: this.config.passwordClientSecret } : {}),
    });
    const response = await fetch(`${this.config.domain}/oauth2/default/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form,
    });
    const body = (await response.json()) as {
      access_token?: string;
      error?: string;
      error_description?: string;
    };
    if (response.ok && body.access_token) return body.access_token;
    if (body.error === 'invalid_grant') return undefined;
    throw new Error(
      `Okta refused the check's sign-in (${response.status} ${body.error ?? ''}: ${body.error_description ?? ''}): is the Resource Owner Password grant on for OKTA_CHECK_PASSWORD_CLIENT_ID, and allowed by the default authorization server's access policy?`,
    );
  }

  /** Deletes every user the check created (deactivate, then delete: Okta's two steps). */
  async close(): Promise<void> {
    const leftBehind: string[] = [];
    for (const userId of this.created.splice(0)) {
      // Okta deletes in two steps. A refused deactivation (e.g. already deactivated) is left to the delete to
      // settle; a refused delete leaves the user in the org, which the operator must be told.
      await this.management
        .call('deactivateUser', 'repeatable', (client) => client.userApi.deactivateUser({ userId }))
        .catch(() => undefined);
      try {
        await this.management.call('deleteUser', 'repeatable', (client) =>
          client.userApi.deleteUser({ userId }),
        );
      } catch (error) {
        leftBehind.push(`${userId} (${error instanceof Error ? error.message : String(error)})`);
      }
    }
    if (leftBehind.length > 0) {
      throw new Error(
        `okta:check could not delete the users it created: ${leftBehind.join(', ')}; delete them in the Admin Console`,
      );
    }
  }
}

/** The portal in Okta mode in front of the real org, accepting the check's sign-ins (API_CLIENT_IDS). */
export async function startPortalForRealOrg(
  config: RealOrgConfig,
  options: { now?: () => number; env?: Record<string, string> } = {},
): Promise<TestApp> {
  const dataDir = tempDir();
  const settings = path.join(dataDir, 'settings.json');
  writeFileSync(settings, JSON.stringify({ Domain: config.domain, ClientId: config.portalClientId }));
  return startApp(
    {
      SETTINGS_FILE: settings,
      API_CLIENT_IDS: config.passwordClientId,
      ...config.oktaEnv,
      ...options.env,
    },
    dataDir,
    options.now ? { now: options.now } : {},
  );
}

/** A code of the authenticator app's shared secret, `offsetSteps` 30 s steps from now (Okta's real clock). */
export function realTotp(secret: string, offsetSteps = 0): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: Date.now() + offsetSteps * 30_000 });
}

/**
 * The contract backend (test/contract/backend.ts) over a real org: kind 'okta' like the stand-in's, since the
 * portal behaves the same; what only the stand-in can do throws NotCheckableAgainstRealOrg.
 */
export async function startRealOrgBackend(options: { env?: Record<string, string> } = {}): Promise<{
  backend: ContractBackend;
  close(): Promise<void>;
  resetClock(): void;
}> {
  const org = new RealOrg(realOrgConfigOf(process.env));
  let now = Date.now();
  const clock = {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
  const t = await startPortalForRealOrg(org.config, { now: clock.now, env: options.env ?? {} });
  const { app } = t;
  const signIn = async (account: ContractAccount, authTimeAgoMs = 0) => {
    if (authTimeAgoMs > 0)
      throw new NotCheckableAgainstRealOrg('a sign-in in the past (auth_time is Okta’s)');
    const token = await org.signIn(account.email, account.password);
    if (!token) throw new Error(`Okta refused the check's own sign-in of ${account.email}`);
    return token;
  };
  const backend: ContractBackend = {
    kind: 'okta',
    app,
    clock,
    // The org's own password policy is whatever its admin set: which password it refuses is not known here.
    get sourcePasswordPolicy(): never {
      throw new NotCheckableAgainstRealOrg("the org's own password policy (unknown to the check)");
    },
    async newAccount({ federated = false, profile = {} } = {}) {
      const user = await org.createUser(
        {
          firstName: profile.firstName ?? 'Ada',
          lastName: profile.lastName ?? 'Lovelace',
          countryCode: profile.country ?? 'GB',
        },
        { federated },
      );
      const account = { sub: user.id, email: user.login, password: user.password, token: '' };
      account.token = await signIn(account);
      return account;
    },
    signIn: (account, { authTimeAgoMs = 0 } = {}) => signIn(account, authTimeAgoMs),
    call: (method, url, token, body) => inject(app, method, url, token, body),
    async profileAtSource(account) {
      const profile = await org.profileOf(account.sub);
      const text = (name: string) => (typeof profile[name] === 'string' ? (profile[name] as string) : '');
      return {
        firstName: text('firstName'),
        lastName: text('lastName'),
        country: text('countryCode'),
        email: text('email'),
      };
    },
    passwordAccepted: async (account, password) => (await org.signIn(account.email, password)) !== undefined,
    lastEmailCode: () => {
      throw new NotCheckableAgainstRealOrg('reading back the email code Okta sent');
    },
    totp: (secret, offsetSteps = 0) => realTotp(secret, offsetSteps),
    factorsAtSource: (account) => org.factorsOf(account.sub),
    async localUserRows() {
      const row = await app.storage.sql.get<{ n: number }>('SELECT count(*) AS n FROM users');
      return Number(row?.n ?? 0);
    },
  };
  return {
    backend,
    async close() {
      await t.close();
      await org.close();
    },
    resetClock() {
      now = Date.now();
    },
  };
}
