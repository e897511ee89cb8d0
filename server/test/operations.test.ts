/**
 * Issue 9, row 9: a busy database answers 503 with Retry-After quickly and never freezes the server for
 * seconds; /healthz stays cheap, /readyz proves a write; a client trickling a body cannot hold a request; a
 * shutdown has a deadline. Another process really holds the database's write lock here (SQLite's file lock, or
 * PostgreSQL's table locks and the instances' write lock), and the shutdown and timeout tests talk to a real server
 * process over loopback. The data folder's file modes (SQLite only): sqlite/operations-data-dir-modes.test.ts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AppConfig } from '../src/config/index.js';
import { SERVING_LOCK_WAIT_MS } from '../src/db/connection.js';
import { openPostgres } from '../src/db/postgres.js';
import type { Database } from '../src/db/sql.js';
import { openSqlite } from '../src/db/sqlite.js';
import { runCli } from '../src/directory-cli.js';
import { STORAGE_UNAVAILABLE_MESSAGE } from '../src/http/storage-unavailable.js';
import { READINESS_REUSE_MS } from '../src/routes/web.js';
import { escapeHtml } from '../src/oidc/html.js';
import {
  ALICE,
  authorizeUrl,
  refreshRequest,
  startApp,
  subOf,
  tempDir,
  tokensFor,
  type TestApp,
} from './helpers.js';
import { createTestDatabase, isPostgresProject } from './support/postgres.js';
import { holdWriteLock } from './support/write-lock.js';

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));

/** Measured figures, printed at the end of the file's run for the issue note. */
const figures: string[] = [];
afterAll(() => {
  if (figures.length > 0) process.stdout.write(`\nOperations figures:\n  ${figures.join('\n  ')}\n`);
});

/** How long a write waits for another process's lock once the server serves, before it is answered 503. */
const WRITE_WAIT_MS = SERVING_LOCK_WAIT_MS;

/** A connection of the test's own to the app's database (another process's, as the directory CLI has). */
function openAnother(config: AppConfig): Promise<Database> {
  const { database } = config;
  if (database.kind === 'sqlite') return Promise.resolve(openSqlite(database.dataDir));
  return openPostgres({
    url: database.url,
    poolMax: 1,
    connectTimeoutMs: database.connectTimeoutMs,
    statementTimeoutMs: database.statementTimeoutMs,
  });
}

describe('a database another process holds the write lock of', () => {
  let t: TestApp;
  let clock: { now: number };
  let token: string;
  let sub: string;
  beforeAll(async () => {
    clock = { now: Date.now() };
    // PostgreSQL: a statement waits for a lock as long as it may run, so the wait is its statement timeout.
    t = await startApp({ DATABASE_STATEMENT_TIMEOUT_MS: String(WRITE_WAIT_MS) }, tempDir(), {
      now: () => clock.now,
    });
    token = (await tokensFor(t.app, ALICE)).access_token;
    sub = subOf(token);
  });
  afterAll(async () => t.close());

  const updateProfile = (firstName: string) =>
    t.app.inject({
      method: 'PUT',
      url: `/api/profile/${sub}/update`,
      headers: { authorization: `Bearer ${token}` },
      payload: { firstName },
    });

  it('answers writes 503 with Retry-After within the short busy timeout, the same body for any request', async () => {
    const lock = await holdWriteLock(t.config);
    try {
      const startedAt = performance.now();
      const first = await updateProfile('Alicia');
      const waitedMs = performance.now() - startedAt;
      const second = await updateProfile('Mallory');

      expect(first.statusCode).toBe(503);
      expect(Number(first.headers['retry-after'])).toBeGreaterThan(0);
      expect(first.json()).toEqual({ error: STORAGE_UNAVAILABLE_MESSAGE, code: 'storage_unavailable' });
      expect(second.statusCode).toBe(503);
      expect(second.body).toBe(first.body);
      // The event loop is blocked for the busy timeout, not for seconds (it was 5 s per write).
      expect(waitedMs).toBeGreaterThanOrEqual(WRITE_WAIT_MS * 0.9);
      expect(waitedMs).toBeLessThan(1000);
      figures.push(`a write on a locked database: 503 after ${Math.round(waitedMs)} ms`);

      // Liveness does not write, so it answers at once.
      const healthAt = performance.now();
      expect((await t.app.inject('/healthz')).statusCode).toBe(200);
      const healthMs = performance.now() - healthAt;
      expect(healthMs).toBeLessThan(WRITE_WAIT_MS);
      figures.push(`/healthz while the database is locked: ${healthMs.toFixed(1)} ms`);

      clock.now += READINESS_REUSE_MS;
      const ready = await t.app.inject('/readyz');
      expect(ready.statusCode).toBe(503);
      expect(Number(ready.headers['retry-after'])).toBeGreaterThan(0);
      // SQLite names the lock; PostgreSQL, the statement that waited for it past its time.
      const reason = t.config.database.kind === 'sqlite' ? /lock/ : /ran out of time/;
      expect(ready.json()).toEqual({
        error: expect.stringMatching(new RegExp(`^The database cannot be written: .*${reason.source}`)),
      });
    } finally {
      await lock.release();
    }
    clock.now += READINESS_REUSE_MS;
    expect((await t.app.inject('/readyz')).json()).toEqual({ status: 'ready' });
    expect((await updateProfile('Alice')).statusCode).toBe(200);
  });

  it("answers the identity provider's writes 503 with Retry-After too (a sign-in request, a token refresh)", async () => {
    const { refresh_token: refreshToken } = await tokensFor(t.app, ALICE);
    const lock = await holdWriteLock(t.config);
    try {
      const page = await t.app.inject({ url: authorizeUrl(), headers: { accept: 'text/html' } });
      expect(page.statusCode).toBe(503);
      expect(Number(page.headers['retry-after'])).toBeGreaterThan(0);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain(escapeHtml(STORAGE_UNAVAILABLE_MESSAGE));

      const token = await refreshRequest(t.app, refreshToken ?? '');
      expect(token.statusCode).toBe(503);
      expect(Number(token.headers['retry-after'])).toBeGreaterThan(0);
      expect(token.json()).toEqual({
        error: 'temporarily_unavailable',
        error_description: STORAGE_UNAVAILABLE_MESSAGE,
      });
    } finally {
      await lock.release();
    }
  });

  it('still lets the directory CLI add a user while the server runs: the CLI waits longer than the server', async () => {
    const lock = await holdWriteLock(t.config, 400);
    // The CLI finds the server's database as the server does: DATABASE_URL (with its key) or the data folder.
    const { DATABASE_URL, TOTP_ENCRYPTION_KEY, KEY_RING_ENCRYPTION_KEY } = t.config;
    if (DATABASE_URL !== undefined) {
      vi.stubEnv('DATABASE_URL', DATABASE_URL);
      vi.stubEnv('TOTP_ENCRYPTION_KEY', TOTP_ENCRYPTION_KEY?.toString('hex'));
      vi.stubEnv('KEY_RING_ENCRYPTION_KEY', KEY_RING_ENCRYPTION_KEY?.toString('hex'));
    }
    const output: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => (
      output.push(String(chunk)),
      true
    )) as typeof process.stdout.write;
    let code: number;
    try {
      code = await runCli([
        'add-user',
        '--email',
        'ada@example.com',
        '--password',
        'Analytical-42',
        '--given-name',
        'Ada',
        '--family-name',
        'Lovelace',
        '--country',
        'GB',
        '--data-dir',
        t.dataDir,
      ]);
    } finally {
      process.stdout.write = write;
      vi.unstubAllEnvs();
      await lock.release();
    }
    expect(code).toBe(0);
    expect(output.join('')).toContain('"email":"ada@example.com"');
    expect(await t.app.directory.findByEmail('ada@example.com')).toBeDefined();
  });

  it('opens an up-to-date database without taking the write lock (a CLI start does not wait)', async () => {
    const lock = await holdWriteLock(t.config);
    try {
      const startedAt = performance.now();
      const db = await openAnother(t.config);
      const openedMs = performance.now() - startedAt;
      await db.close();
      expect(openedMs).toBeLessThan(500);
    } finally {
      await lock.release();
    }
  });
});

describe('health and readiness', () => {
  let t: TestApp;
  let clock: { now: number };
  beforeAll(async () => {
    clock = { now: Date.now() };
    t = await startApp({}, tempDir(), { now: () => clock.now });
  });
  afterAll(async () => t.close());
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Every statement the app sends its database from now on, and each readiness probe, counted. */
  function countStatements() {
    const { database } = t.app;
    const spies = (['all', 'get', 'run', 'transaction', 'probeWrite'] as const).map((method) =>
      vi.spyOn(database, method),
    );
    return () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
  }
  // SQLite counts every row its connection changed (total_changes): a write that bypassed the Sql interface too.
  const sqliteChanges = async () =>
    t.app.storage.sql.dialect === 'sqlite'
      ? (await t.app.storage.sql.get<{ n: number }>('SELECT total_changes() AS n'))?.n
      : undefined;
  const probeValue = async () =>
    (await t.app.storage.sql.get<{ value: string }>("SELECT value FROM meta WHERE key = 'readiness_probe'"))
      ?.value;

  it('/healthz asks nothing of the database', async () => {
    const before = await sqliteChanges();
    const statements = countStatements();
    for (let call = 0; call < 5; call += 1) expect((await t.app.inject('/healthz')).statusCode).toBe(200);
    expect(statements()).toBe(0);
    expect(await sqliteChanges()).toBe(before);
  });

  it('/readyz writes to the database at most once per second, however often it is asked', async () => {
    const first = await t.app.inject('/readyz');
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ status: 'ready' });
    expect(first.headers['cache-control']).toBe('no-store');
    const written = await probeValue();
    expect(written).toBe(new Date(clock.now).toISOString());

    const before = await sqliteChanges();
    const statements = countStatements();
    const flood = await Promise.all(Array.from({ length: 50 }, () => t.app.inject('/readyz')));
    expect(flood.every((response) => response.statusCode === 200)).toBe(true);
    expect(statements()).toBe(0);
    expect(await sqliteChanges()).toBe(before);

    clock.now += READINESS_REUSE_MS;
    expect((await t.app.inject('/readyz')).statusCode).toBe(200);
    expect(await probeValue()).toBe(new Date(clock.now).toISOString());
  });
});

// --- A real server process over loopback -------------------------------------------------------------------

interface RunningServer {
  child: ChildProcess;
  port: number;
  dataDir: string;
  output: string[];
  exited: Promise<{ code: number | null; at: number }>;
  stop(): Promise<void>;
}

/** A free port from the system, never one of the portal's own (3000–3003, 3100): at least 3200. */
async function freePort(): Promise<number> {
  for (;;) {
    const probe = createServer();
    probe.listen(0, 'localhost');
    await once(probe, 'listening');
    const { port } = probe.address() as { port: number };
    probe.close();
    await once(probe, 'close');
    if (port >= 3200) return port;
  }
}

/**
 * `tsx src/server.ts` on a free port and a temp DATA_DIR (in the postgres project, on a fresh database of the run's
 * PostgreSQL); resolves once it listens (its banner is out).
 */
async function spawnServer(env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = tempDir();
  const database = isPostgresProject() ? await createTestDatabase() : undefined;
  const storage: Record<string, string> = database
    ? {
        DATABASE_URL: database.url,
        TOTP_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        KEY_RING_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      }
    : {};
  const child = spawn(process.execPath, ['--conditions=portal-source', '--import', 'tsx', 'src/server.ts'], {
    cwd: SERVER_DIR,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: 'localhost',
      DATA_DIR: dataDir,
      SHELL_DIST: path.join(dataDir, 'no-shell-build'),
      LOG_LEVEL: 'silent',
      DEMO_ACCOUNTS: 'false',
      ...storage,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, at: performance.now() })),
  );
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
    await database?.drop();
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output.push(chunk.toString('utf8'));
        if (output.join('').includes('My Profile portal:')) resolve();
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      void exited.then(({ code }) => reject(new Error(`server exited (${code}): ${output.join('')}`)));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  return { child, port, dataDir, output, exited, stop };
}

/** Resolves once the server's output (stdout and stderr so far and to come) satisfies `done`. */
function outputReaches(server: RunningServer, done: (output: string) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!done(server.output.join(''))) return;
      server.child.stdout?.off('data', check);
      resolve();
    };
    server.child.stdout?.on('data', check);
    check();
  });
}

const TOKEN_REQUEST_LOGGED =
  /"msg":"incoming request"[^\n]*"url":"\/oauth2\/default\/v1\/token"|"url":"\/oauth2\/default\/v1\/token"[^\n]*"msg":"incoming request"/g;

/**
 * Opens a POST to the token endpoint that announces a body of `length` bytes and sends only `sent` of it. The
 * server closes the connection after its answer (Connection: close).
 */
async function partialPost(port: number, length: number, sent: string): Promise<Socket> {
  const socket = connect(port, 'localhost');
  await once(socket, 'connect');
  socket.write(
    `POST /oauth2/default/v1/token HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${length}\r\n\r\n${sent}`,
  );
  return socket;
}

/**
 * Everything the server sends on `socket` until the connection closes. A server that cuts a client still writing
 * closes with a reset (ECONNRESET, or EPIPE on the client's next write): that is a close too, kept as `error` rather
 * than left unhandled.
 */
function readUntilClosed(socket: Socket): Promise<{ text: string; at: number; error?: string }> {
  let text = '';
  let error: string | undefined;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', (cause: NodeJS.ErrnoException) => (error = cause.code ?? cause.message));
  return new Promise((resolve) =>
    socket.once('close', () => resolve({ text, at: performance.now(), ...(error ? { error } : {}) })),
  );
}

/** Sends one byte every `everyMs` until the connection closes. */
function trickle(socket: Socket, everyMs: number): void {
  const timer = setInterval(() => {
    if (!socket.destroyed && socket.writable) socket.write('a');
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

describe('a real server process', () => {
  let timeouts: RunningServer;
  let shutdown: RunningServer;
  beforeAll(async () => {
    [timeouts, shutdown] = await Promise.all([
      spawnServer({ REQUEST_TIMEOUT_MS: '1000' }),
      spawnServer({ REQUEST_TIMEOUT_MS: '60000', SHUTDOWN_TIMEOUT_MS: '1000', LOG_LEVEL: 'info' }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([timeouts?.stop(), shutdown?.stop()]);
  });

  it('cuts a client trickling a request body at REQUEST_TIMEOUT_MS (408, connection closed)', async () => {
    const socket = await partialPost(timeouts.port, 10_000, 'grant_type=');
    const startedAt = performance.now();
    trickle(socket, 100);
    const { text, at } = await readUntilClosed(socket);
    const heldMs = at - startedAt;
    expect(text).toMatch(/^HTTP\/1\.1 408 /);
    // The timeout plus Node's check interval (1 s).
    expect(heldMs).toBeGreaterThanOrEqual(900);
    expect(heldMs).toBeLessThan(3000);
    figures.push(`a trickled body (REQUEST_TIMEOUT_MS=1000) is cut after ${Math.round(heldMs)} ms`);
  });

  it.each([
    ['with a Content-Length', false],
    ['chunked', true],
  ])(
    'hands a form-posted sign-in request %s to the provider whole, even when it arrives in pieces',
    async (_name, chunked) => {
      const body = authorizeUrl().split('?')[1] ?? '';
      const socket = connect(timeouts.port, 'localhost');
      await once(socket, 'connect');
      const answer = readUntilClosed(socket);
      const framing = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${body.length}`;
      const piece = (text: string) => (chunked ? `${text.length.toString(16)}\r\n${text}\r\n` : text);
      socket.write(
        `POST /oauth2/default/v1/authorize HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n` +
          `Content-Type: application/x-www-form-urlencoded\r\n${framing}\r\n\r\n${piece(body.slice(0, 40))}`,
      );
      // The rest a moment later, so the server reads the body in two parts (there is nothing to wait on instead).
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.write(`${piece(body.slice(40))}${chunked ? '0\r\n\r\n' : ''}`);
      const { text } = await answer;
      expect(text).toMatch(/^HTTP\/1\.1 303 /);
      expect(text).toMatch(/\r\nlocation: \/oauth2\/default\/interaction\//i);
    },
  );

  it('exits at once on SIGTERM when nothing is in flight (exit code 0)', async () => {
    const signalledAt = performance.now();
    timeouts.child.kill('SIGTERM');
    const { code, at } = await timeouts.exited;
    expect(code).toBe(0);
    expect(at - signalledAt).toBeLessThan(2000);
    figures.push(`SIGTERM with nothing in flight: exited in ${Math.round(at - signalledAt)} ms`);
  });

  it('on SIGTERM drains a request in flight, then cuts a trickling client at SHUTDOWN_TIMEOUT_MS and exits', async () => {
    const body = 'grant_type=refresh_token&client_id=account-portal&refresh_token=unknown';
    const inFlight = await partialPost(shutdown.port, body.length, body.slice(0, 10));
    const inFlightAnswer = readUntilClosed(inFlight);
    const trickler = await partialPost(shutdown.port, 10_000, 'grant_type=');
    trickle(trickler, 100);
    const tricklerClosed = readUntilClosed(trickler);

    // Both requests have reached the server (it logs each as it arrives).
    await outputReaches(shutdown, (output) => (output.match(TOKEN_REQUEST_LOGGED) ?? []).length >= 2);

    const signalledAt = performance.now();
    shutdown.child.kill('SIGTERM');
    // Once the server has begun to shut down, the first client finishes its body and still gets its answer.
    await outputReaches(shutdown, (output) => output.includes('"msg":"shutting down"'));
    // write, not end: a client that half-closes its side is one that went away (Node answers it nothing once the
    // answer waits on the database); the request asks for the connection to be closed after the answer instead.
    inFlight.write(body.slice(10));
    const answered = await inFlightAnswer;
    expect(answered.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(answered.text).toContain('invalid_grant');

    const { code, at } = await shutdown.exited;
    const tookMs = at - signalledAt;
    expect(code).toBe(1);
    expect(tookMs).toBeGreaterThanOrEqual(900);
    expect(tookMs).toBeLessThan(3500);
    const cut = await tricklerClosed;
    expect(cut.at - signalledAt).toBeLessThan(3500);
    // Cut while still sending: closed plainly or reset, never anything else.
    expect([undefined, 'ECONNRESET', 'EPIPE']).toContain(cut.error);
    figures.push(
      `SIGTERM with a trickling client (SHUTDOWN_TIMEOUT_MS=1000): exited in ${Math.round(tookMs)} ms`,
    );
  });
});
