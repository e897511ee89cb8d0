/**
 * Issue 9, row 9: a busy database answers 503 with Retry-After quickly and never freezes the server for
 * seconds; /healthz stays cheap, /readyz proves a write; a client trickling a body cannot hold a request; a
 * shutdown has a deadline. A second process really holds SQLite's write lock here, and the shutdown and timeout
 * tests talk to a real server process over loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { rmSync, statSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, DB_FILE_NAME, SERVING_BUSY_TIMEOUT_MS } from '../src/db/connection.js';
import { runCli } from '../src/directory/cli.js';
import { STORAGE_UNAVAILABLE_MESSAGE } from '../src/plugins/errors.js';
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

const SERVER_DIR = fileURLToPath(new URL('..', import.meta.url));

/** Measured figures, printed at the end of the file's run for the issue note. */
const figures: string[] = [];
afterAll(() => {
  if (figures.length > 0) process.stdout.write(`\nOperations figures:\n  ${figures.join('\n  ')}\n`);
});

/**
 * Another process holding the database's write lock (BEGIN IMMEDIATE) until it is told to let go, or for
 * `holdMs` on its own.
 */
async function holdWriteLock(dataDir: string, holdMs?: number): Promise<{ release(): Promise<void> }> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE');
    const release = () => { db.exec('COMMIT'); db.close(); process.exit(0); };
    process.send('locked');
    process.on('message', release);
    if (process.argv[2]) setTimeout(release, Number(process.argv[2]));
  `;
  const child = spawn(
    process.execPath,
    ['-e', script, path.join(dataDir, DB_FILE_NAME), ...(holdMs === undefined ? [] : [String(holdMs)])],
    { cwd: SERVER_DIR, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const [message] = (await once(child, 'message')) as [string];
  if (message !== 'locked') throw new Error(`lock holder said ${message}`);
  const exited = once(child, 'exit');
  return {
    async release() {
      // It may have let go on its own already.
      if (child.connected) child.send('release', () => undefined);
      await exited;
    },
  };
}

describe('a database another process holds the write lock of', () => {
  let t: TestApp;
  let clock: { now: number };
  let token: string;
  let sub: string;
  beforeAll(async () => {
    clock = { now: Date.now() };
    t = await startApp({}, tempDir(), { now: () => clock.now });
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
    const lock = await holdWriteLock(t.dataDir);
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
      expect(waitedMs).toBeGreaterThanOrEqual(SERVING_BUSY_TIMEOUT_MS * 0.9);
      expect(waitedMs).toBeLessThan(1000);
      figures.push(`a write on a locked database: 503 after ${Math.round(waitedMs)} ms`);

      // Liveness does not write, so it answers at once.
      const healthAt = performance.now();
      expect((await t.app.inject('/healthz')).statusCode).toBe(200);
      const healthMs = performance.now() - healthAt;
      expect(healthMs).toBeLessThan(SERVING_BUSY_TIMEOUT_MS);
      figures.push(`/healthz while the database is locked: ${healthMs.toFixed(1)} ms`);

      clock.now += READINESS_REUSE_MS;
      const ready = await t.app.inject('/readyz');
      expect(ready.statusCode).toBe(503);
      expect(Number(ready.headers['retry-after'])).toBeGreaterThan(0);
      expect(ready.json()).toEqual({
        error: expect.stringMatching(/^The database cannot be written: .*lock/),
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
    const lock = await holdWriteLock(t.dataDir);
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
    const lock = await holdWriteLock(t.dataDir, 400);
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
      await lock.release();
    }
    expect(code).toBe(0);
    expect(output.join('')).toContain('"email":"ada@example.com"');
    expect(t.app.directory.findByEmail('ada@example.com')).toBeDefined();
  });

  it('opens an up-to-date database without taking the write lock (a CLI start does not wait)', async () => {
    const lock = await holdWriteLock(t.dataDir);
    try {
      const startedAt = performance.now();
      const db = openDatabase(t.dataDir);
      const openedMs = performance.now() - startedAt;
      db.close();
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

  const changes = () => (t.app.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
  const probeValue = () =>
    (
      t.app.db.prepare("SELECT value FROM meta WHERE key = 'readiness_probe'").get() as
        { value: string } | undefined
    )?.value;

  it('/healthz writes nothing', async () => {
    const before = changes();
    for (let call = 0; call < 5; call += 1) expect((await t.app.inject('/healthz')).statusCode).toBe(200);
    expect(changes()).toBe(before);
  });

  it('/readyz writes to the database at most once per second, however often it is asked', async () => {
    const first = await t.app.inject('/readyz');
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({ status: 'ready' });
    expect(first.headers['cache-control']).toBe('no-store');
    const written = probeValue();
    expect(written).toBe(new Date(clock.now).toISOString());

    const before = changes();
    const flood = await Promise.all(Array.from({ length: 50 }, () => t.app.inject('/readyz')));
    expect(flood.every((response) => response.statusCode === 200)).toBe(true);
    expect(changes()).toBe(before);

    clock.now += READINESS_REUSE_MS;
    expect((await t.app.inject('/readyz')).statusCode).toBe(200);
    expect(probeValue()).toBe(new Date(clock.now).toISOString());
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

/** `tsx src/server.ts` on a free port and a temp DATA_DIR; resolves once it listens (its banner is out). */
async function spawnServer(env: Record<string, string>): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = tempDir();
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
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.once('exit', (code) => resolve({ code, at: performance.now() })),
  );
  await new Promise<void>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString('utf8'));
      if (output.join('').includes('My Profile portal:')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(({ code }) => reject(new Error(`server exited (${code}): ${output.join('')}`)));
  });
  return {
    child,
    port,
    dataDir,
    output,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
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

/** Opens a POST to the token endpoint that announces a body of `length` bytes and sends only `sent` of it. */
async function partialPost(port: number, length: number, sent: string): Promise<Socket> {
  const socket = connect(port, 'localhost');
  await once(socket, 'connect');
  socket.write(
    `POST /oauth2/default/v1/token HTTP/1.1\r\nHost: localhost:${port}\r\n` +
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${length}\r\n\r\n${sent}`,
  );
  return socket;
}

/** Everything the server sends on `socket` until it closes the connection. */
function readUntilClosed(socket: Socket): Promise<{ text: string; at: number }> {
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  return new Promise((resolve) => socket.once('close', () => resolve({ text, at: performance.now() })));
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

  it('creates DATA_DIR 0700 with every file in it 0600, the WAL included (umask 077)', () => {
    expect(statSync(timeouts.dataDir).mode & 0o777).toBe(0o700);
    for (const name of [DB_FILE_NAME, `${DB_FILE_NAME}-wal`, `${DB_FILE_NAME}-shm`, 'totp-encryption-key']) {
      expect(statSync(path.join(timeouts.dataDir, name)).mode & 0o777, name).toBe(0o600);
    }
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
    inFlight.end(body.slice(10));
    const answered = await inFlightAnswer;
    expect(answered.text).toMatch(/^HTTP\/1\.1 400 /);
    expect(answered.text).toContain('invalid_grant');

    const { code, at } = await shutdown.exited;
    const tookMs = at - signalledAt;
    expect(code).toBe(1);
    expect(tookMs).toBeGreaterThanOrEqual(900);
    expect(tookMs).toBeLessThan(3500);
    expect((await tricklerClosed).at - signalledAt).toBeLessThan(3500);
    figures.push(
      `SIGTERM with a trickling client (SHUTDOWN_TIMEOUT_MS=1000): exited in ${Math.round(tookMs)} ms`,
    );
  });
});
