// Starts the built portal (scripts/start.mjs) on a fresh data folder of the bench's own, and stops it.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const PORTAL = 'http://localhost:3000';
const DATA_DIR = path.join(ROOT, 'data', 'bench');

async function waitFor(url, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function startPortal() {
  rmSync(DATA_DIR, { recursive: true, force: true });
  const child = spawn(process.execPath, [path.join(ROOT, 'scripts', 'start.mjs')], {
    cwd: ROOT,
    // The /api flood guard would cap the throughput run; the bench measures the API, not the guard.
    env: { ...process.env, DATA_DIR, LOG_LEVEL: 'warn', API_RATE_LIMIT: '1000000000' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor(`${PORTAL}/healthz`);
  await waitFor('http://localhost:3001/remoteEntry.js');
  return {
    dataDir: DATA_DIR,
    async stop() {
      if (child.exitCode !== null) return;
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
    },
  };
}
