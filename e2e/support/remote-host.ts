import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT, TEST_HOST_PORTS } from './paths.js';

const STATIC_HOST_CLI = path.join(REPO_ROOT, 'server', 'dist', 'static-host', 'cli.js');

/** This worker's own port for a remote host (tests in one worker run one at a time). */
export function testHostPort(parallelIndex: number): number {
  const port = TEST_HOST_PORTS[parallelIndex % TEST_HOST_PORTS.length];
  if (port === undefined) throw new Error('No test host ports configured');
  return port;
}

/** A remote's build served from its own origin by the project's static host, started and stopped by a test. */
export class RemoteHost {
  private child: ChildProcess | undefined;

  constructor(
    readonly root: string,
    readonly port: number,
    /** Pages that may load its files with CORS; the static host's default (the suite's portal) when absent. */
    private readonly allowOrigins?: readonly string[],
  ) {}

  get origin(): string {
    return `http://localhost:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(
      process.execPath,
      [
        STATIC_HOST_CLI,
        '--root',
        this.root,
        '--port',
        String(this.port),
        ...(this.allowOrigins ? ['--allow-origins', this.allowOrigins.join(',')] : []),
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    this.child = child;
    await new Promise<void>((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`static host exited with ${code}`)));
      child.stdout?.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('remoteEntry.js')) resolve();
      });
    });
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
    this.child = undefined;
  }
}
