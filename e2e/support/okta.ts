// The portal in Okta mode on loopback, as a deployment in front of a real Okta org runs it: the Okta org stand-in
// (server/test/support/okta-org: the Management API, validated against Okta's published spec, and the org's
// authorization server with its sign-in page) in this Playwright worker, the production server
// (`node server/dist/server.js`) with the settings' Domain = the org and the okta identity backend's service app
// registered there, and the remotes' builds on static hosts of their own. The tests read and arrange Okta's side
// (users, factors, the email codes Okta "sent") through the stand-in's API in the worker.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  startOktaOrg,
  type OktaOrg,
  type OktaPasswordPolicy,
  type ServiceAppInput,
} from '../../server/test/support/okta-org/index.js';
import { OKTA_PORTAL_ORIGIN, OKTA_PORTS } from './okta-ports.js';
import { REPO_ROOT } from './paths.js';
import { tempFolder } from './remote-build.js';
import {
  everyChild,
  PortalProcess,
  remoteHosts,
  writeRemotesConfig,
  type Child,
} from './server-processes.js';

export { OKTA_PORTAL_ORIGIN, OKTA_PORTS };

/** The portal's SPA in the org: the settings' ClientId, the `cid` of its access tokens. */
export const OKTA_SPA_CLIENT_ID = '0oaE2ePortalSpa';
const SERVICE_KEY_ID = 'e2e-service-1';

/**
 * The org's password policy: one rule stricter than the portal's (a symbol), so a password the page accepts can
 * still be refused by Okta, which the page shows in its 'Changes could not be saved' dialog.
 */
export const OKTA_PASSWORD_POLICY: Partial<OktaPasswordPolicy> = { minSymbol: 1 };

/**
 * The org's boolean custom profile attribute that marks federated users (the portal's OKTA_FEDERATED_ATTRIBUTE),
 * declared in the stand-in's user schema. Users without it are not federated.
 */
export const OKTA_FEDERATED_ATTRIBUTE = 'portalFederated';

/** An Okta user of one test: `sub` is Okta's user id (the `uid` of the access token, the `{sub}` of the API). */
export interface OktaTestUser {
  sub: string;
  email: string;
  password: string;
  givenName: string;
  familyName: string;
  country: string;
  name: string;
}

export class OktaPortal {
  private constructor(
    readonly org: OktaOrg,
    readonly portal: PortalProcess,
    private readonly staticHosts: readonly Child[],
    private readonly folder: string,
  ) {}

  readonly origin = OKTA_PORTAL_ORIGIN;

  /** Starts everything; on any failure, stops what had started and throws with the output. */
  static async start(): Promise<OktaPortal> {
    const folder = tempFolder('okta');
    let org: OktaOrg | undefined;
    const children: Child[] = [];
    try {
      org = await startOktaOrg({
        port: OKTA_PORTS.org,
        passwordPolicy: OKTA_PASSWORD_POLICY,
        customProfileAttributes: { [OKTA_FEDERATED_ATTRIBUTE]: { type: 'boolean' } },
        authorizationServer: {
          clients: [
            {
              clientId: OKTA_SPA_CLIENT_ID,
              redirectUris: [`${OKTA_PORTAL_ORIGIN}/login/callback`],
              postLogoutRedirectUris: [OKTA_PORTAL_ORIGIN, `${OKTA_PORTAL_ORIGIN}/`],
            },
          ],
        },
      });
      const staticHosts = remoteHosts(OKTA_PORTS.remotes, OKTA_PORTAL_ORIGIN);
      const portal = new PortalProcess(
        `portal in Okta mode (:${OKTA_PORTS.portal})`,
        OKTA_PORTS.portal,
        portalEnv(folder, org),
      );
      children.push(...staticHosts, portal);
      for (const child of children) everyChild.add(child);
      await Promise.all([...staticHosts.map((host) => host.start()), portal.start()]);
      return new OktaPortal(org, portal, staticHosts, folder);
    } catch (error) {
      await Promise.allSettled(children.map((child) => child.stop('SIGKILL')));
      for (const child of children) everyChild.delete(child);
      await org?.close().catch(() => undefined);
      rmSync(folder, { recursive: true, force: true });
      throw error;
    }
  }

  /**
   * A new Okta user with a password (OKTA credentials), for one test. The password has a symbol (the org's policy)
   * and no part of the login (Okta's excludeUsername). `federated`: the org's federated attribute set to true.
   */
  createUser(options: { country?: string; federated?: boolean } = {}): OktaTestUser {
    const id = randomUUID().slice(0, 8);
    const email = `okta-${id}@example.org`;
    const password = `Pw-${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}-Zx9`;
    const givenName = 'Olivia';
    const familyName = `Okta ${id}`;
    const country = options.country ?? 'DE';
    const created = this.org.addUser({
      profile: {
        login: email,
        email,
        firstName: givenName,
        lastName: familyName,
        countryCode: country,
        ...(options.federated ? { [OKTA_FEDERATED_ATTRIBUTE]: true } : {}),
      },
      password,
    });
    return {
      sub: created.id,
      email,
      password,
      givenName,
      familyName,
      country,
      name: `${givenName} ${familyName}`,
    };
  }

  /** Crashes of the portal or a host so far (exits the tests did not ask for). */
  unexpectedExits(): string[] {
    return [this.portal, ...this.staticHosts].flatMap((child) => child.unexpectedExits);
  }

  /** Everything the processes printed and the org's traffic, for a failing test's report. */
  logs(): string {
    const traffic = this.org
      .requests()
      .map((r) => `${r.seq} ${r.at} ${r.status} ${r.method} ${r.path}${r.query ? `?${r.query}` : ''}`);
    return [
      ...[this.portal, ...this.staticHosts].map((child) => `--- ${child.label}\n${child.output.toString()}`),
      `--- Okta org stand-in: requests\n${traffic.join('\n')}`,
      `--- Okta org stand-in: violations\n${JSON.stringify(this.org.violations(), null, 2)}`,
    ].join('\n');
  }

  /** Stops every process and the org and removes every file. */
  async stop(): Promise<void> {
    const children = [this.portal, ...this.staticHosts];
    try {
      await Promise.allSettled(children.map((child) => child.stop('SIGTERM')));
    } finally {
      await Promise.allSettled(children.map((child) => child.stop('SIGKILL')));
      for (const child of children) everyChild.delete(child);
      await this.org.close();
      rmSync(this.folder, { recursive: true, force: true });
    }
  }
}

/**
 * The portal's settings in Okta mode: Domain = the org (so IDENTITY_BACKEND is okta), the SPA's ClientId, the okta
 * backend's service app (private_key_jwt) registered in the org with the two scopes it needs, a data folder of its
 * own (SQLite: only what Okta cannot hold), the remotes on their static hosts, and the org's federated attribute.
 */
function portalEnv(folder: string, org: OktaOrg): Record<string, string> {
  mkdirSync(folder, { recursive: true });
  const settings = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'config', 'settings.json'), 'utf8'),
  ) as Record<string, unknown>;
  const settingsFile = path.join(folder, 'settings.json');
  writeFileSync(settingsFile, JSON.stringify({ ...settings, Domain: org.url, ClientId: OKTA_SPA_CLIENT_ID }));

  const serviceClientId = `0oaE2eService${randomBytes(4).toString('hex')}`;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  org.registerServiceApp({
    clientId: serviceClientId,
    publicJwk: {
      ...(publicKey.export({ format: 'jwk' }) as ServiceAppInput['publicJwk']),
      kid: SERVICE_KEY_ID,
      alg: 'RS256',
    },
    scopes: ['okta.users.read', 'okta.users.manage'],
  });

  return {
    HOST: 'localhost',
    PUBLIC_URL: OKTA_PORTAL_ORIGIN,
    IDENTITY_BACKEND: 'okta',
    DATA_DIR: path.join(folder, 'data'),
    SETTINGS_FILE: settingsFile,
    REMOTES_FILE: writeRemotesConfig(folder, OKTA_PORTS.remotes),
    TRUSTED_ORIGINS: Object.values(OKTA_PORTS.remotes)
      .map((port) => `http://localhost:${port}`)
      .join(','),
    OKTA_CLIENT_ID: serviceClientId,
    OKTA_PRIVATE_KEY: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    OKTA_KEY_ID: SERVICE_KEY_ID,
    OKTA_FEDERATED_ATTRIBUTE,
    LOG_LEVEL: 'warn',
  };
}
