// One API instance of the built server (server/dist/server.js) with a configuration of the bench's own: SQLite in
// its own DATA_DIR, or PostgreSQL when `databaseUrl` is given. Several instances given the same `publicUrl` (the
// proxy's) and the same database are one deployment: a token from either is accepted by both.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './portal.mjs';

async function waitForHealth(url, child, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`the instance for ${url} exited (${child.exitCode}) before it answered`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url}/healthz did not answer within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A data folder of the bench's own, empty, under data/bench-backends. */
export function freshDataDir(name) {
  const folder = path.join(ROOT, 'data', 'bench-backends', name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  return folder;
}

/**
 * Starts an instance on `port` and resolves once /healthz answers. `name` names its folder under data/bench-backends
 * (its settings file, and its DATA_DIR unless `dataDir` names one that other instances use too); `env` adds settings.
 * Returns `{ url, pid, stop() }`; stop() ends it with SIGTERM (a graceful shutdown) and waits.
 */
export async function startInstance({
  name,
  port,
  publicUrl = `http://localhost:${port}`,
  databaseUrl,
  totpKey,
  dataDir,
  env: extraEnv = {},
}) {
  const folder = freshDataDir(name);
  dataDir ??= path.join(folder, 'data');
  mkdirSync(dataDir, { recursive: true });
  // The embedded provider runs when the settings' Domain is the public origin: its issuer is {publicUrl}/oauth2/default.
  const settings = JSON.parse(readFileSync(path.join(ROOT, 'config', 'settings.json'), 'utf8'));
  const settingsFile = path.join(folder, 'settings.json');
  writeFileSync(settingsFile, JSON.stringify({ ...settings, Domain: publicUrl }));
  const env = {
    ...process.env,
    PORT: String(port),
    PUBLIC_URL: publicUrl,
    DATA_DIR: dataDir,
    SETTINGS_FILE: settingsFile,
    SHELL_DIST: path.join(ROOT, 'shell', 'dist'),
    LOG_LEVEL: 'warn',
    // The /api flood guard would cap the run: the bench measures the API, not the guard.
    API_RATE_LIMIT: '1000000000',
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  if (databaseUrl) {
    Object.assign(env, {
      DATABASE_URL: databaseUrl,
      TOTP_ENCRYPTION_KEY: totpKey,
      // The instances of a run share totpKey: the key ring's key is derived from it, so they share that one too.
      KEY_RING_ENCRYPTION_KEY: createHash('sha256').update(`key-ring ${totpKey}`).digest('hex'),
    });
  }
  const child = spawn(process.execPath, [path.join(ROOT, 'server', 'dist', 'server.js')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  };
  try {
    await waitForHealth(`http://localhost:${port}`, child);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://localhost:${port}`, pid: child.pid, stop };
}
