// A cluster of the portal on loopback, as a multi-instance deployment runs it: a throwaway PostgreSQL, two
// instances of the production server (`node server/dist/server.js`) sharing DATABASE_URL, TOTP_ENCRYPTION_KEY,
// KEY_RING_ENCRYPTION_KEY and every other setting, a round-robin proxy in front of them (PUBLIC_URL is the proxy's
// origin, so the issuer and the cookies are its), and the remotes' builds on static hosts of their own. Each
// instance has a data folder of its own, as separate machines would: nothing can be shared through files. The
// fault tests kill an instance, restart it, and stop and start the database.
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CLUSTER_ORIGIN, CLUSTER_PORTS } from './cluster-ports.js';
import { startClusterDatabase, type ClusterDatabase } from './cluster-database.js';
import { RoundRobinProxy, type ProxiedRequest } from './cluster-proxy.js';
import { REPO_ROOT } from './paths.js';
import { tempFolder } from './remote-build.js';
import {
  everyChild,
  PortalProcess,
  remoteHosts,
  writeRemotesConfig,
  type StaticHost,
} from './server-processes.js';
import type { TestUser } from './users.js';

/** The instances' names in the proxy's record and its X-Served-By header. */
export const INSTANCE_NAMES = ['A', 'B'] as const;
export type InstanceName = (typeof INSTANCE_NAMES)[number];

export { CLUSTER_ORIGIN, CLUSTER_PORTS };

const DIRECTORY_CLI = path.join(REPO_ROOT, 'server', 'dist', 'directory-cli.js');
const run = promisify(execFile);

export class ServerInstance extends PortalProcess {
  constructor(
    readonly name: InstanceName,
    port: number,
    env: Record<string, string>,
  ) {
    super(`instance ${name} (:${port})`, port, env);
  }
}

/**
 * An API answer's JSON. The spec's answers are JSON text inside a JSON string (its client parses them twice),
 * so a string is parsed once more.
 */
export async function apiBody<T>(response: Response): Promise<T> {
  const body = (await response.json()) as unknown;
  return (typeof body === 'string' ? JSON.parse(body) : body) as T;
}

export interface MailboxMessage {
  to: string;
  subject: string;
  text: string;
  date: string;
}

export class Cluster {
  private constructor(
    readonly database: ClusterDatabase,
    readonly proxy: RoundRobinProxy,
    readonly instances: readonly ServerInstance[],
    private readonly staticHosts: readonly StaticHost[],
    /** The settings every instance gets (DATABASE_URL, TOTP_ENCRYPTION_KEY, PUBLIC_URL…), for the directory CLI. */
    readonly env: Record<string, string>,
    private readonly folder: string,
  ) {}

  readonly origin = CLUSTER_ORIGIN;

  /**
   * Starts everything; on any failure, stops what had started and throws with the output. Both instances start
   * at the same moment on the new database: their migrations run under the database's advisory lock.
   */
  static async start(): Promise<Cluster> {
    const folder = tempFolder('cluster');
    const started: { stop(): Promise<void> }[] = [];
    let database: ClusterDatabase | undefined;
    try {
      database = await startClusterDatabase(CLUSTER_PORTS.database);
      const env = instanceEnv(folder, database.url);
      const staticHosts = remoteHosts(CLUSTER_PORTS.remotes, CLUSTER_ORIGIN);
      const instances = INSTANCE_NAMES.map((name, index) => {
        const port = CLUSTER_PORTS.instances[index]!;
        // A data folder per instance, as on separate machines.
        return new ServerInstance(name, port, {
          ...env,
          DATA_DIR: path.join(folder, `data-${name}`),
        });
      });
      for (const child of [...staticHosts, ...instances]) everyChild.add(child);
      started.push(...[...staticHosts, ...instances].map((child) => ({ stop: () => child.stop('SIGKILL') })));
      const proxy = new RoundRobinProxy(
        CLUSTER_PORTS.proxy,
        instances.map((instance) => ({ name: instance.name, port: instance.port })),
      );
      await Promise.all([
        ...staticHosts.map((host) => host.start()),
        ...instances.map((instance) => instance.start()),
      ]);
      await proxy.start();
      return new Cluster(database, proxy, instances, staticHosts, env, folder);
    } catch (error) {
      await Promise.allSettled(started.map((child) => child.stop()));
      await database?.dispose().catch(() => undefined);
      rmSync(folder, { recursive: true, force: true });
      throw error;
    }
  }

  instance(name: InstanceName): ServerInstance {
    const found = this.instances.find((instance) => instance.name === name);
    if (!found) throw new Error(`No instance ${name}`);
    return found;
  }

  /** kill -9: the instance dies at once, with whatever it had in flight. */
  kill(name: InstanceName): Promise<void> {
    return this.instance(name).stop('SIGKILL');
  }

  /** Starts a stopped instance again with the same settings and data folder; resolves when it answers. */
  restart(name: InstanceName): Promise<void> {
    return this.instance(name).start();
  }

  /** Takes PostgreSQL away from every instance (fast shutdown: their connections end). */
  stopDatabase(): Promise<void> {
    return this.database.stop();
  }

  /** PostgreSQL again, on the same data folder and port. */
  startDatabase(): Promise<void> {
    return this.database.start();
  }

  /** Crashes of any instance or host so far (exits the tests did not ask for). */
  unexpectedExits(): string[] {
    return [...this.instances, ...this.staticHosts].flatMap((child) => child.unexpectedExits);
  }

  /** Both instances and the database up again, as a test expects to find them (after a fault test). */
  async ensureRunning(): Promise<void> {
    await this.database.start();
    for (const instance of this.instances) if (!instance.running) await instance.start();
  }

  /** Requests through the proxy from `mark` on (see RoundRobinProxy.mark). */
  requestsSince(mark: number): ProxiedRequest[] {
    return this.proxy.since(mark);
  }

  /**
   * A new account in the cluster's directory, through the operators' CLI with the instances' own settings (so it
   * goes to their PostgreSQL): each test gets its own.
   */
  async createUser(options: { country?: string } = {}): Promise<TestUser> {
    const id = randomUUID().slice(0, 8);
    const user = {
      email: `e2e-${id}@example.org`,
      password: `Pw-${randomUUID()}-Zx9`,
      givenName: 'Tess',
      familyName: `Tester ${id}`,
      country: options.country ?? 'DE',
    };
    const { stdout } = await run(
      process.execPath,
      [
        DIRECTORY_CLI,
        'add-user',
        '--email',
        user.email,
        '--password',
        user.password,
        '--given-name',
        user.givenName,
        '--family-name',
        user.familyName,
        '--country',
        user.country,
      ],
      {
        cwd: REPO_ROOT,
        env: {
          ...process.env,
          ...this.env,
          DATA_DIR: path.join(this.folder, 'data-cli'),
          // The instances keep a short connect bound for their fault tests; an operator's one-off command can
          // wait for a busy database.
          DATABASE_CONNECT_TIMEOUT_MS: '30000',
        },
      },
    );
    const created = JSON.parse(stdout) as { id?: string; sub?: string };
    const sub = created.sub ?? created.id;
    if (!sub) throw new Error(`The directory CLI did not return the new user's id: ${stdout}`);
    return { ...user, sub, name: `${user.givenName} ${user.familyName}` };
  }

  /** The newest development-mailbox message to `email` after `since` (ISO) that `matches`, read through the proxy. */
  async mailFor(
    email: string,
    matches: (message: MailboxMessage) => boolean,
    since = '1970-01-01T00:00:00.000Z',
    timeoutMs = 10_000,
  ): Promise<MailboxMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = await fetch(`${this.origin}/dev/mailbox/messages`);
      if (response.ok) {
        const found = ((await response.json()) as MailboxMessage[]).find(
          (message) => message.to === email && message.date > since && matches(message),
        );
        if (found) return found;
      }
      if (Date.now() > deadline)
        throw new Error(`No message to ${email} since ${since} within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /** Everything the cluster printed, for a failing test's report. */
  logs(): string {
    return [
      ...[...this.instances, ...this.staticHosts].map(
        (child) => `--- ${child.label}\n${child.output.toString()}`,
      ),
      `--- PostgreSQL\n${this.database.log()}`,
    ].join('\n');
  }

  /** Stops every process and the database and removes every file: runs whatever state the tests left. */
  async stop(): Promise<void> {
    const children = [...this.instances, ...this.staticHosts];
    try {
      await this.proxy.stop();
      // SIGTERM: the instances drain and close their pools, as in a rolling deploy.
      await Promise.allSettled(children.map((child) => child.stop('SIGTERM')));
    } finally {
      await Promise.allSettled(children.map((child) => child.stop('SIGKILL')));
      for (const child of children) everyChild.delete(child);
      await this.database.dispose();
      rmSync(this.folder, { recursive: true, force: true });
    }
  }
}

/**
 * The settings of every instance: one PUBLIC_URL (the proxy's origin), one database, one TOTP key, the proxy
 * trusted for X-Forwarded-*, and the cluster's own remotes file and settings file.
 */
function instanceEnv(folder: string, databaseUrl: string): Record<string, string> {
  mkdirSync(folder, { recursive: true });
  const settings = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'config', 'settings.json'), 'utf8'),
  ) as Record<string, unknown>;
  // The settings' Domain is the public origin: the embedded provider's issuer is {proxy}/oauth2/default.
  const settingsFile = path.join(folder, 'settings.json');
  writeFileSync(settingsFile, JSON.stringify({ ...settings, Domain: CLUSTER_ORIGIN }));
  const remotesFile = writeRemotesConfig(folder, CLUSTER_PORTS.remotes);
  return {
    HOST: 'localhost',
    PUBLIC_URL: CLUSTER_ORIGIN,
    DATABASE_URL: databaseUrl,
    // One key for every instance: a secret enrolled through one is checked by the other.
    TOTP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    // And one key that seals the key ring and the provider's records: a token one instance signs, the other checks.
    KEY_RING_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    SETTINGS_FILE: settingsFile,
    REMOTES_FILE: remotesFile,
    TRUSTED_ORIGINS: Object.values(CLUSTER_PORTS.remotes)
      .map((port) => `http://localhost:${port}`)
      .join(','),
    // The proxy is on loopback: its X-Forwarded-For names the browser.
    TRUST_PROXY: 'loopback',
    LOG_LEVEL: 'warn',
    // Every request of the load comes from one address: lift the per-address flood guard above the tests' rate.
    API_RATE_LIMIT: '1000000',
  };
}
