/**
 * The portal in Okta mode against the Okta org stand-in (./okta-org): the org's authorization server keys (served by
 * the stand-in at {Domain}/oauth2/default/v1/keys, its `jwks` option), access tokens shaped like Okta's, and an app
 * whose settings' Domain is the stand-in, with a service app registered there for the okta identity backend.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { SignJWT, type JWK } from 'jose';
import { sharedEmailRun } from 'shared-auth/contract';
import type { BuildOptions } from '../../src/app.js';
import { startApp, tempDir, type TestApp } from '../helpers.js';
import { pooledRsaKeyPair } from './key-material.js';
import type { OktaOrg } from './okta-org/index.js';

/** The portal's ClientId in the org (the `cid` of its access tokens). */
export const OKTA_PORTAL_CLIENT_ID = '0oaPortalClient';
const TOKEN_KEY_ID = 'okta-key-1';

/**
 * The org's default authorization server: one RS256 key, its public half as the JWKS to give the stand-in
 * (`useOktaOrg({ jwks: server.jwks })`; the set is read per request, so it may be filled in after the org starts).
 */
export function oktaAuthorizationServer() {
  // From the run's pool (key-material.ts): generating RSA keys is slow on 2 cores.
  const { privateKey, publicKey } = pooledRsaKeyPair();
  const jwks: { keys: JWK[] } = {
    keys: [{ ...(publicKey.export({ format: 'jwk' }) as JWK), kid: TOKEN_KEY_ID, alg: 'RS256', use: 'sig' }],
  };
  return {
    jwks,
    /**
     * An access token as Okta issues it for the portal's SPA: `sub` is the login, `uid` the user id, `cid` the
     * client, `scp` the scopes (array), `auth_time` when the user signed in (now unless given), `iat` when it was
     * issued (now unless given: a token issued before a change). `issuer` defaults to the org's
     * `{Domain}/oauth2/default`.
     */
    token(
      org: Pick<OktaOrg, 'url'>,
      user: { id: string; login: string },
      claims: Record<string, unknown> = {},
      issuer = `${org.url}/oauth2/default`,
    ): Promise<string> {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({
        ver: 1,
        jti: `AT.${randomBytes(12).toString('base64url')}`,
        uid: user.id,
        cid: OKTA_PORTAL_CLIENT_ID,
        scp: ['openid', 'profile', 'email', 'phone'],
        auth_time: now,
        ...claims,
      })
        .setProtectedHeader({ alg: 'RS256', kid: TOKEN_KEY_ID })
        .setIssuer(issuer)
        .setAudience('api://default')
        .setSubject(user.login)
        .setIssuedAt(typeof claims.iat === 'number' ? claims.iat : now)
        .setExpirationTime(now + 3600)
        .sign(privateKey);
    },
  };
}

/**
 * Starts the portal in Okta mode with the stand-in as its org: settings' Domain = the org, the okta identity
 * backend with a service app (private_key_jwt) registered in the org for `okta.users.read okta.users.manage` (or
 * for the scopes of `env.OKTA_SCOPES`, when given).
 */
export async function startOktaPortal(
  org: OktaOrg,
  env: Record<string, string> = {},
  options: Omit<BuildOptions, 'logger'> = {},
): Promise<TestApp> {
  const serviceClientId = `0oaService${randomBytes(4).toString('hex')}`;
  const { privateKey, publicKey } = pooledRsaKeyPair();
  org.registerServiceApp({
    clientId: serviceClientId,
    publicJwk: { ...(publicKey.export({ format: 'jwk' }) as JWK), kid: 'service-1', alg: 'RS256' },
    // The scopes OKTA_SCOPES asks for (a test may add okta.authenticators.read), else the portal's default.
    scopes: env.OKTA_SCOPES?.split(' ') ?? ['okta.users.read', 'okta.users.manage'],
  });
  const dataDir = tempDir();
  const settings = path.join(dataDir, 'settings.json');
  writeFileSync(settings, JSON.stringify({ Domain: org.url, ClientId: OKTA_PORTAL_CLIENT_ID }));
  return startApp(
    {
      SETTINGS_FILE: settings,
      OKTA_CLIENT_ID: serviceClientId,
      OKTA_PRIVATE_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
      OKTA_KEY_ID: 'service-1',
      ...env,
    },
    dataDir,
    options,
  );
}

/** The rows of the portal's `users` table: none may ever be written in Okta mode. */
export async function countUsers(t: TestApp): Promise<number> {
  const row = await t.app.storage.sql.get<{ n: number }>('SELECT count(*) AS n FROM users');
  return Number(row?.n ?? 0);
}

/** A user of the org with a password and no factor (its login and password, to sign in with). */
export interface OrgAccount {
  id: string;
  login: string;
  password: string;
}

let orgAccounts = 0;
/** Adds a user named `firstName lastName` with a fresh login and password and no factor to `org`. */
export function newOrgAccount(
  org: OktaOrg,
  firstName: string,
  lastName: string,
  countryCode: string,
): OrgAccount {
  orgAccounts += 1;
  const login = `${firstName.toLowerCase()}${orgAccounts}x${randomBytes(3).toString('hex')}@customer.example`;
  const password = passwordUnlike(login, 'Pw', 'Secure-7');
  const user = org.addUser({ profile: { login, email: login, firstName, lastName, countryCode }, password });
  return { id: user.id, login, password };
}

/**
 * A random password `{prefix}-{8 hex}-{suffix}` that shares no 3-character run with `login`: the password policy
 * refuses one that does, and random hex beside the login's own random hex did so about once in a few hundred runs.
 */
export function passwordUnlike(login: string, prefix = 'Nw', suffix = 'Secure-8'): string {
  for (;;) {
    const password = `${prefix}-${randomBytes(4).toString('hex')}-${suffix}`;
    if (sharedEmailRun(password, login) === undefined) return password;
  }
}
