#!/usr/bin/env node
/* global window, location -- evaluated in the page */
// Checks `pnpm dev` in Chromium: starts the development portal, signs in on /profile, then changes a remote's
// source and the shell's source and sees the open page reload with the change. Restores both files. Needs the
// ports of the portal (3000-3005) free. Run it from the repository root: node e2e/support/dev-reload-check.mjs
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';

const root = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const PORTAL = 'http://localhost:3000';
const DATA_DIR = path.join(root, 'data', 'dev-check');
const REMOTE_FILE = path.join(root, 'remote-profile', 'src', 'exposes', 'ProfilePage.tsx');
const SHELL_FILE = path.join(
  root,
  'shell',
  'src',
  'features',
  'remotes',
  'components',
  'RemoteLoadFailed.tsx',
);
const mark = `dev-check-${Date.now().toString(36)}`;

async function answers(url) {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

async function waitUntil(what, check, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** Edits a source file; returns the function that puts it back exactly as it was. */
function edit(file, change) {
  const original = readFileSync(file, 'utf8');
  writeFileSync(file, change(original));
  return () => writeFileSync(file, original);
}

/** Marks the current document, runs the change, and waits until a new document (a reload) is there. */
async function reloadAfter(page, change, timeoutMs = 90_000) {
  await page.evaluate(() => Object.assign(window, { __devCheck: true }));
  const started = Date.now();
  change();
  await waitUntil(
    'page reload',
    () => page.evaluate(() => !('__devCheck' in window)).catch(() => false),
    timeoutMs,
  );
  return Date.now() - started;
}

if (await answers(`${PORTAL}/healthz`)) {
  console.error('Something already answers on :3000; stop it first.');
  process.exit(2);
}

rmSync(DATA_DIR, { recursive: true, force: true });
const started = Date.now();
const dev = spawn(process.execPath, [path.join(root, 'scripts', 'dev.mjs')], {
  cwd: root,
  env: { ...process.env, DATA_DIR, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const restores = [];
const browser = await chromium.launch({
  executablePath: [process.env.CHROMIUM_PATH, '/usr/bin/chromium'].find((file) => file && existsSync(file)),
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run'],
});
let failed = false;
try {
  await waitUntil('pnpm dev start-up', () => answers(`${PORTAL}/healthz`), 240_000);
  await waitUntil(
    'remote-profile dev server',
    () => answers('http://localhost:3001/remoteEntry.js'),
    240_000,
  );
  console.log(`pnpm dev up in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const page = await browser.newPage();
  const cspViolations = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  await page.goto(`${PORTAL}/profile`);
  await page.getByLabel('Email').fill('alice@example.com');
  await page.getByLabel('Password').fill('Wonderland-42');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('table').getByText('Liddell').waitFor({ timeout: 60_000 });
  // The page's build is out of the holder's view: its root element says it (data-build).
  const pageRoot = page.locator('[data-build]');
  await pageRoot.waitFor();
  console.log(`signed in on /profile: build "${await pageRoot.getAttribute('data-build')}"`);

  // A remote's source changes: its dev server rebuilds, and its client (inside remoteEntry.js) reloads the page.
  const changed = page.locator(`[data-dev-check="${mark}"]`);
  const remoteMs = await reloadAfter(page, () =>
    restores.push(
      edit(REMOTE_FILE, (text) =>
        text.replace('<div data-build={BUILD}>', `<div data-build={BUILD} data-dev-check="${mark}">`),
      ),
    ),
  );
  await changed.waitFor({ timeout: 30_000 });
  console.log(`remote-profile changed → page reloaded with the change in ${(remoteMs / 1000).toFixed(1)} s`);
  const restoreMs = await reloadAfter(page, () => restores.pop()());
  await page.getByRole('table').getByText('Liddell').waitFor({ timeout: 30_000 });
  if ((await changed.count()) !== 0) throw new Error('the restored remote still shows the change');
  console.log(`remote-profile restored → page reloaded without it in ${(restoreMs / 1000).toFixed(1)} s`);

  // The shell's own source changes: its dev server (:3005) rebuilds into data/dev/shell and reloads the page.
  const shellMs = await reloadAfter(page, () =>
    restores.push(edit(SHELL_FILE, (text) => `${text}\nexport const devCheckMark = '${mark}';\n`)),
  );
  await page.getByRole('table').getByText('Liddell').waitFor({ timeout: 30_000 });
  const shellHasMark = await page.evaluate(async (value) => {
    const scripts = performance
      .getEntriesByType('resource')
      .map((entry) => entry.name)
      .filter((name) => name.startsWith(location.origin) && name.endsWith('.js'));
    for (const script of scripts) if ((await (await fetch(script)).text()).includes(value)) return true;
    return false;
  }, mark);
  console.log(
    `shell changed → page reloaded in ${(shellMs / 1000).toFixed(1)} s (new shell build served: ${shellHasMark})`,
  );
  const shellRestoreMs = await reloadAfter(page, () => restores.pop()());
  await page.getByRole('table').getByText('Liddell').waitFor({ timeout: 30_000 });
  console.log(`shell restored → page reloaded in ${(shellRestoreMs / 1000).toFixed(1)} s`);
  if (cspViolations.length > 0) throw new Error(`CSP violations:\n${cspViolations.join('\n')}`);
  console.log('no CSP violation: the dev servers’ websockets and scripts are allowed');
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  for (const restore of restores.reverse()) restore();
  await browser.close();
  await new Promise((resolve) => {
    dev.once('exit', resolve);
    dev.kill('SIGTERM');
  });
  rmSync(DATA_DIR, { recursive: true, force: true });
}
console.log(failed ? 'dev reload check FAILED' : 'dev reload check passed');
process.exit(failed ? 1 : 0);
