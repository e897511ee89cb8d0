// A portal server of a test's own, on a free loopback port with a fresh data folder, for settings the suite's shared
// server cannot take (SMTP_URL, a clock the test moves): the production build, started as the README starts it,
// stopped (and its folder removed) by the test.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from '@playwright/test';
import { REPO_ROOT } from './paths.js';
import { SERVER, STARTUP_TIMEOUT_MS } from './server-processes.js';

export interface PortalProcess {
  origin: string;
  dataDir: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  probe.listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Starts the portal with `env` added to the defaults; `nodeArgs` go before the script (e.g. `--import`); on `port`
 * when the test needs a known origin (another host's CORS list names it), else on a free one.
 */
export async function startPortal(
  env: Record<string, string> = {},
  nodeArgs: string[] = [],
  port?: number,
): Promise<PortalProcess> {
  port ??= await freePort();
  const origin = `http://localhost:${port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'portal-e2e-'));
  const settings = JSON.parse(
    readFileSync(path.join(REPO_ROOT, 'config', 'settings.json'), 'utf8'),
  ) as Record<string, unknown>;
  const settingsFile = path.join(dataDir, 'settings.json');
  writeFileSync(settingsFile, JSON.stringify({ ...settings, Domain: origin }));
  const child = spawn(process.execPath, [...nodeArgs, SERVER], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      PUBLIC_URL: origin,
      DATA_DIR: dataDir,
      SETTINGS_FILE: settingsFile,
      SHELL_DIST: path.join(REPO_ROOT, 'shell', 'dist'),
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await expect(async () => {
      if (child.exitCode !== null) throw new Error(`The test's own server stopped: ${stderr}`);
      const response = await fetch(`${origin}/healthz`);
      expect(response.ok).toBe(true);
    }).toPass({ timeout: STARTUP_TIMEOUT_MS });
  } catch (error) {
    // A server that did not come up in time is still running: it must not outlive the test.
    await stop();
    throw error;
  }
  return { origin, dataDir, child, stop };
}
