import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The workspace's export condition for TypeScript sources (tsconfig.base.json customConditions): shared-auth
// resolves to src/, so tests need no prior build of it. Only this one is added: listing node/import here
// changes how externalised CommonJS packages (e.g. helmet) load.
const conditions = ['portal-source'];

/**
 * Each layer of tests runs once, on what it tests:
 * - `unit`: the files that build no storage (no app, no database): once, with no database server started;
 * - `sqlite`: every file that builds an app or a database (HTTP, security, fuzz, domains), on SQLite;
 * - `postgres`: what depends on the storage engine, on PostgreSQL: the storage conformance suite
 *   (test/storage/**, also run on SQLite), the PostgreSQL HTTP smoke (test/storage/postgres-http.test.ts), the
 *   contract suite (also run on SQLite), the PostgreSQL driver's own files and the files that test a store or the
 *   migrations directly;
 * - `okta`: the contract suite against the Okta org stand-in (and `pnpm okta:check` against it).
 * `vitest run --project sqlite` runs one of them. scripts/storage-coverage.mjs checks that the postgres project
 * still covers storage/ and db/ as much as the whole suite did on PostgreSQL.
 */

/** Files that build no storage: they run once, in `unit` (test/support/storage-kind.ts refuses them storage). */
const UNIT_FILES = [
  'test/architecture.test.ts',
  'test/clients.test.ts',
  'test/config.test.ts',
  'test/config-remotes.test.ts',
  'test/okta-check.test.ts',
  'test/okta-identity.test.ts',
  'test/okta-org-standin.test.ts',
  'test/okta-settings.test.ts',
  'test/org-activity-events.test.ts',
  'test/passkey-rp.test.ts',
  'test/pg-binaries.test.ts',
  'test/release-cli.test.ts',
  'test/settings-domain.test.ts',
  'test/sql-in-storage.test.ts',
  'test/static-host.test.ts',
  'test/token-cache.test.ts',
  'test/session-cache.test.ts',
];

/** Files of one engine: the PostgreSQL driver's, and what only a SQLite file has (its lock, its file modes). */
const POSTGRES_ONLY_FILES = ['test/postgres-*.test.ts', 'test/storage/postgres-*.test.ts'];
const SQLITE_ONLY_FILES = ['test/sqlite/**'];

/** What runs on both engines: the conformance suite, the contract suite, the files that test stores directly. */
const BOTH_ENGINES_FILES = [
  'test/storage/**/*.test.ts',
  'test/contract/**/*.test.ts',
  'test/at-rest-migration.test.ts',
  'test/at-rest.test.ts',
  'test/directory.test.ts',
  'test/key-ring.test.ts',
  // It holds a test of PostgreSQL's write lock seen through the sign-in page.
  'test/signin-hardening.test.ts',
  'test/throttle.test.ts',
  'test/totp-key.test.ts',
];

/**
 * Run once, in project okta: a whole contract run in a child process; Okta mode's activity read from the stand-in's
 * System Log; Okta mode's Devices list.
 */
const OKTA_ONLY_FILES = [
  'test/okta-check-against-org.test.ts',
  'test/okta-activity.test.ts',
  'test/okta-devices.test.ts',
];

const POSTGRES_SETUP = 'test/support/postgres-global-setup.ts';

/** Argon2 hashing and RSA key generation (where a test still does them) are slow on 2 cores. */
const timeouts = { testTimeout: 20_000, hookTimeout: 30_000 };

function base(name: string, storage: 'none' | 'sqlite' | 'postgres') {
  return {
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: {
      name,
      environment: 'node' as const,
      env: { PORTAL_TEST_STORAGE: storage },
      ...timeouts,
    },
  };
}

function unitProject() {
  const project = base('unit', 'none');
  return { ...project, test: { ...project.test, include: UNIT_FILES } };
}

function sqliteProject() {
  const project = base('sqlite', 'sqlite');
  return {
    ...project,
    test: {
      ...project.test,
      include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
      exclude: [...UNIT_FILES, ...POSTGRES_ONLY_FILES, ...OKTA_ONLY_FILES, 'node_modules/**'],
    },
  };
}

function postgresProject() {
  const project = base('postgres', 'postgres');
  return {
    ...project,
    test: {
      ...project.test,
      include: [...BOTH_ENGINES_FILES, ...POSTGRES_ONLY_FILES],
      exclude: [...SQLITE_ONLY_FILES, 'node_modules/**'],
      // One PostgreSQL serves the project: started here (or TEST_DATABASE_URL), with the migrated template.
      globalSetup: [POSTGRES_SETUP],
    },
  };
}

/**
 * The contract suite (test/contract/**, the same tests as the embedded projects run) with the okta identity
 * backend against the Okta org stand-in (test/contract/backend.ts reads PORTAL_TEST_IDENTITY), on SQLite storage:
 * in Okta mode the portal keeps only grants, throttles and notices, whichever storage holds them.
 */
function oktaContractProject() {
  const project = base('okta', 'sqlite');
  return {
    ...project,
    test: {
      ...project.test,
      include: ['test/contract/**/*.test.ts', ...OKTA_ONLY_FILES],
      exclude: ['node_modules/**'],
      env: { PORTAL_TEST_STORAGE: 'sqlite', PORTAL_TEST_IDENTITY: 'okta' },
    },
  };
}

/**
 * `pnpm okta:check` (scripts/okta-check.mjs): the contract suite against a real Okta org
 * (test/contract/real-org.ts). Listed only when the org is configured, so a plain run never reaches out.
 */
function realOrgContractProject() {
  const okta = oktaContractProject();
  return {
    ...okta,
    test: {
      ...okta.test,
      name: 'okta-org',
      include: ['test/contract/**/*.test.ts'],
      env: { PORTAL_TEST_STORAGE: 'sqlite', PORTAL_TEST_IDENTITY: 'okta-org' },
      // Every call goes to Okta over the internet.
      testTimeout: 60_000,
    },
  };
}

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    // Every file builds its own app and database, and no test mocks a module: a worker keeps the server's modules
    // loaded from one file to the next instead of importing them again for each (that import was half the run).
    // Whatever a test changes in the process (environment variables, mocks) is undone after it.
    isolate: false,
    unstubEnvs: true,
    unstubGlobals: true,
    restoreMocks: true,
    // The main process only waits on the workers: every core runs a worker (vitest leaves one idle by default).
    maxWorkers: availableParallelism(),
    minWorkers: 1,
    // Once per run, for every project: the test apps' pre-generated key material and SQLite template.
    globalSetup: ['test/support/fixtures-global-setup.ts'],
    // `pnpm test:storage-coverage`: what the postgres project covers of the persistence floor (scripts/storage-coverage.mjs).
    coverage: {
      provider: 'v8',
      include: ['src/storage/**', 'src/db/**'],
      reporter: ['text-summary', 'json-summary'],
      reportsDirectory: 'coverage/postgres',
      // A test that timed out on a busy machine must not hide the figures.
      reportOnFailure: true,
    },
    projects: [
      unitProject(),
      sqliteProject(),
      postgresProject(),
      oktaContractProject(),
      ...(process.env.OKTA_CHECK_DOMAIN ? [realOrgContractProject()] : []),
    ],
  },
});
