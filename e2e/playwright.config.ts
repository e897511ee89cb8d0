import { defineConfig, devices } from '@playwright/test';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CLUSTER_ORIGIN } from './support/cluster-ports.js';
import { OKTA_PORTAL_ORIGIN } from './support/okta-ports.js';
import { E2E_DATA_DIR, RELEASES_PORTAL_PORT, TEST_HOST_PORTS } from './support/paths.js';
import { STARTUP_TIMEOUT_MS } from './support/server-processes.js';

const root = path.resolve(import.meta.dirname, '..');

/** The projects named on the command line (`--project a b`, `--project=c`); none means all. */
function projectsAsked(): string[] {
  const args = process.argv;
  return args.flatMap((arg, index) => {
    if (arg.startsWith('--project=')) return [arg.slice('--project='.length)];
    if (arg !== '--project') return [];
    // Playwright reads every argument after --project up to the next option as a project name.
    const rest = args.slice(index + 1);
    const end = rest.findIndex((next) => next.startsWith('-'));
    return end < 0 ? rest : rest.slice(0, end);
  });
}
/**
 * Only projects whose tests start every server they need (cluster, okta): the suite's server on :3000 is not one.
 */
const ownServersOnly =
  projectsAsked().length > 0 && projectsAsked().every((name) => name === 'cluster' || name === 'okta');

/** Whether the run shows the browser (`--headed`, `--ui`, `--debug`, PWDEBUG): only a full Chromium can. */
const headed =
  process.argv.some((arg) => arg === '--headed' || arg === '--ui' || arg === '--debug') ||
  !!process.env.PWDEBUG;

/**
 * Playwright cannot download browsers on every machine: use the system's Chromium unless CHROMIUM_PATH says
 * otherwise. Headless, Debian's `chromium-headless-shell` first: the same engine without the full browser's
 * window machinery, which the new headless mode of `chromium` runs too. Measured on the same 8 tests beside the
 * same load: 68 s of Chromium CPU against 122 s, 106 s of wall time against 149 s.
 */
function chromiumPath(): string | undefined {
  const candidates = [
    process.env.CHROMIUM_PATH,
    ...(headed ? [] : ['/usr/bin/chromium-headless-shell']),
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
  ];
  return candidates.find((candidate): candidate is string => !!candidate && existsSync(candidate));
}

export default defineConfig({
  testDir: './tests',
  fullyParallel: true,
  // Three: most journeys spend much of their time waiting (a TOTP step, the email resend window, a fault's timeout),
  // so a third worker fills the two cores; four overloads them. Traces are off by default for the same reason (they
  // cost a fifth of the suite's CPU): E2E_TRACE=1 records one for each failing test.
  workers: process.env.E2E_WORKERS ? Number(process.env.E2E_WORKERS) : 3,
  forbidOnly: true,
  retries: 0,
  // The longest journeys (the fault and step-up specs) take 30-40 s on a quiet 2-core machine and twice that when
  // it is busy; a test is given room to finish, while every step inside still waits at most its own bound.
  timeout: 120_000,
  // A condition on a page is awaited up to 20 s: on a machine kept busy by another build a page render alone can
  // take 10 s (the same bound as the browser packages' Testing Library waits).
  expect: { timeout: 20_000 },
  reporter: [['list']],
  use: {
    baseURL: 'http://localhost:3000',
    trace: process.env.E2E_TRACE === '1' ? 'retain-on-failure' : 'off',
    screenshot: 'only-on-failure',
    ...devices['Desktop Chrome'],
    // As a holder who asked for less motion: antd then opens dialogs without a zoom (shared-ui's theme). A click on
    // a dialog's button as it starts to zoom can land on a moving target and be lost (the cluster journey lost its
    // step-up Verify that way once), and the motions cost a busy machine's CPU. account-protection.spec.ts keeps
    // the motions on, and waits for them, so the animated dialogs stay proven too.
    reducedMotion: 'reduce',
    launchOptions: {
      executablePath: chromiumPath(),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [
    // The cluster and Okta tests run one at a time on ports of their own: they are listed first so that they start
    // at once beside the chromium tests instead of running alone at the end.
    // Two instances on PostgreSQL behind a round-robin proxy (support/cluster.ts), started by the tests
    // themselves (a worker fixture), on ports of their own. One worker: the cluster's ports are fixed.
    {
      name: 'cluster',
      testMatch: /tests\/cluster\/.*\.spec\.ts$/,
      workers: 1,
      fullyParallel: false,
      use: { baseURL: CLUSTER_ORIGIN },
    },
    // The portal in Okta mode (support/okta.ts): the production server with an Okta org stand-in as its org (run in
    // the worker) and the remotes on static hosts, started by the tests themselves on ports of their own (3400-3410).
    // One worker: the ports are fixed. Alone: `--project okta`.
    {
      name: 'okta',
      testMatch: /tests\/okta\/.*\.spec\.ts$/,
      workers: 1,
      fullyParallel: false,
      use: { baseURL: OKTA_PORTAL_ORIGIN },
    },
    // Switching a remote's version edits the server's remotes file, which every page of the run reads: that test
    // runs on its own once all the others are done. As chromium's teardown project it runs whether they passed or
    // not (a project that depends on chromium would be skipped after any failure). Alone: `--project delivery`.
    {
      name: 'chromium',
      testIgnore: [/delivery-switch\.spec\.ts$/, /tests\/cluster\//, /tests\/okta\//],
      teardown: 'delivery',
    },
    { name: 'delivery', testMatch: /delivery-switch\.spec\.ts$/ },
  ],
  // The production build, started the way the README starts it (`pnpm start` = build + this script).
  webServer: ownServersOnly
    ? undefined
    : {
        command: 'node e2e/support/start-fresh.mjs',
        cwd: root,
        url: 'http://localhost:3000/healthz',
        reuseExistingServer: false,
        timeout: STARTUP_TIMEOUT_MS,
        stdout: 'ignore',
        stderr: 'pipe',
        // A data folder of its own, fresh for every run, so the suite never sees a developer's accounts.
        env: {
          DATA_DIR: E2E_DATA_DIR,
          LOG_LEVEL: 'warn',
          // Every test's browser posts from 127.0.0.1: the suite's sign-ins (each page also asks for passkey
          // options) pass the default 60 a minute. The limit itself is proven in the server's tests.
          SIGN_IN_POSTS_PER_MINUTE: '1000',
          // The default trusted origins, plus the ports where tests start remote hosts of their own.
          TRUSTED_ORIGINS: [3001, 3002, 3003, 3004, 3100, ...TEST_HOST_PORTS]
            .map((port) => `http://localhost:${port}`)
            .join(','),
          // The remote hosts of `pnpm start` serve the portal and the examples page, and the releases test's own
          // portal, which loads the same remotes (tests/releases.spec.ts).
          STATIC_ALLOWED_ORIGINS: [3000, 3100, RELEASES_PORTAL_PORT]
            .map((port) => `http://localhost:${port}`)
            .join(','),
        },
        gracefulShutdown: { signal: 'SIGTERM', timeout: 5000 },
      },
});
