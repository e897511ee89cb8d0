// The production processes an e2e project starts on its own ports (the cluster's instances, the Okta-mode portal) and
// the static hosts serving the remotes' builds: started, watched (an exit nobody asked for is recorded), stopped,
// and killed if the worker exits without its teardown. Shared by cluster.ts and okta.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

export const SERVER = path.join(REPO_ROOT, 'server', 'dist', 'server.js');
const STATIC_HOST = path.join(REPO_ROOT, 'server', 'dist', 'static-host', 'cli.js');
/**
 * A production start: 2-5 s on a quiet 2-core machine; a cluster instance once took over 60 s at load 17 (a server
 * test suite and the e2e suite's other workers beside it). Only a start that never comes waits this long.
 */
export const STARTUP_TIMEOUT_MS = 120_000;

/** Keeps a child's output (the last 64 KiB) for a failing test's report. */
export class Output {
  private text = '';
  add(chunk: Buffer | string) {
    this.text += chunk.toString();
    if (this.text.length > 65_536) this.text = this.text.slice(-65_536);
  }
  toString() {
    return this.text;
  }
}

export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs: number,
  failed: () => string | undefined,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reason = failed();
    if (reason) throw new Error(`${what}: ${reason}`);
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not ready within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A child process of a test project: started, watched (an exit it was not asked for is recorded), stopped. */
export class Child {
  private child: ChildProcess | undefined;
  readonly output = new Output();
  /** Exits nobody asked for (a crash): the fault tests require none. */
  readonly unexpectedExits: string[] = [];
  private stopping = false;

  constructor(
    readonly label: string,
    private readonly args: string[],
    private readonly env: Record<string, string>,
  ) {}

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  spawn(): void {
    if (this.running) throw new Error(`${this.label} is already running`);
    this.stopping = false;
    const child = spawn(process.execPath, this.args, {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout?.on('data', (chunk: Buffer) => this.output.add(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.output.add(chunk));
    child.once('exit', (code, signal) => {
      const line = `[${this.label} exited: ${signal ?? `code ${code}`}]\n`;
      this.output.add(line);
      if (!this.stopping) this.unexpectedExits.push(line.trim());
    });
  }

  exitReason(): string | undefined {
    const child = this.child;
    if (!child || this.running) return undefined;
    return `exited (${child.signalCode ?? `code ${child.exitCode}`}):\n${this.output.toString()}`;
  }

  /** Ends the process with `signal` and waits until it is gone. */
  async stop(signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    this.stopping = true;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }

  /** For process exit: no await possible, the signal is all. */
  killNow(): void {
    if (this.running) {
      this.stopping = true;
      this.child?.kill('SIGKILL');
    }
  }
}

export class StaticHost extends Child {
  constructor(
    readonly remote: string,
    readonly port: number,
    allowOrigin: string,
  ) {
    super(
      `${remote} host (:${port})`,
      [
        STATIC_HOST,
        '--root',
        path.join(REPO_ROOT, remote, 'dist'),
        '--port',
        String(port),
        '--allow-origins',
        allowOrigin,
      ],
      {},
    );
  }

  async start(): Promise<void> {
    this.spawn();
    await waitUntil(
      this.label,
      async () => (await fetch(`http://localhost:${this.port}/healthz`)).ok,
      STARTUP_TIMEOUT_MS,
      () => this.exitReason(),
    );
  }
}

/** A production server (`node server/dist/server.js`) on `port`; `start` resolves once it is ready. */
export class PortalProcess extends Child {
  constructor(
    label: string,
    readonly port: number,
    env: Record<string, string>,
  ) {
    super(label, [SERVER], { ...env, PORT: String(port) });
  }

  get origin(): string {
    return `http://localhost:${this.port}`;
  }

  /** Starts the process; resolves once it is ready (its database reached, migrations done), as a load balancer checks. */
  async start(): Promise<void> {
    this.spawn();
    await waitUntil(
      this.label,
      async () => (await fetch(`${this.origin}/readyz`)).ok,
      STARTUP_TIMEOUT_MS,
      () => this.exitReason(),
    );
  }
}

/** Every child started by this process: killed if the worker exits without its teardown. */
export const everyChild = new Set<Child>();
process.once('exit', () => {
  for (const child of everyChild) child.killNow();
});

/** The remotes' static hosts' ports, by the remote's folder name. */
export type RemotePorts = Readonly<
  Record<'remote-profile' | 'remote-password' | 'remote-security' | 'remote-activity', number>
>;

/** A remotes file (REMOTES_FILE) in `folder` naming each remote's build on its static host; returns its path. */
export function writeRemotesConfig(folder: string, ports: RemotePorts): string {
  const entry = (remote: keyof RemotePorts) => ({
    entry: `http://localhost:${ports[remote]}/remoteEntry.js`,
  });
  const file = path.join(folder, 'remotes.json');
  writeFileSync(
    file,
    JSON.stringify({
      remotes: {
        remote_profile: entry('remote-profile'),
        remote_password: entry('remote-password'),
        remote_security: entry('remote-security'),
        remote_activity: entry('remote-activity'),
      },
    }),
  );
  return file;
}

/** The static hosts of the remotes' builds (the repository's dist folders), each allowing `allowOrigin`. */
export function remoteHosts(ports: RemotePorts, allowOrigin: string): StaticHost[] {
  return Object.entries(ports).map(([remote, port]) => new StaticHost(remote, port, allowOrigin));
}
