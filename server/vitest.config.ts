import { defineConfig } from 'vitest/config';

// The workspace's export condition for TypeScript sources (tsconfig.base.json customConditions): shared-auth
// resolves to src/, so tests need no prior build of it. Only this one is added: listing node/import here
// changes how externalised CommonJS packages (e.g. helmet) load.
const conditions = ['portal-source'];

/**
 * The whole suite runs twice, once per storage: project `sqlite` (the embedded default) and project `postgres`
 * (test/helpers.ts startApp gives each app a fresh PostgreSQL database; see test/support/postgres.ts). One
 * PostgreSQL serves the run: the global setup starts it (or uses TEST_DATABASE_URL) for both projects.
 * `vitest run --project sqlite` runs one of them. Both run the contract suite (test/contract/**) against the
 * embedded identity backend; project `okta` runs only the contract suite, against the Okta org stand-in (and the
 * end-to-end run of `pnpm okta:check` against it, test/okta-check-against-org.test.ts, which needs no database).
 */
function project(storage: 'sqlite' | 'postgres') {
  return {
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: {
      name: storage,
      environment: 'node' as const,
      include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
      // What only a SQLite file has (its write lock held by another process, its files' modes): SQLite only.
      exclude: [
        ...(storage === 'postgres' ? ['test/sqlite/**'] : []),
        // Run once, in project okta: a whole contract run in a child process.
        'test/okta-check-against-org.test.ts',
        'node_modules/**',
      ],
      env: { PORTAL_TEST_STORAGE: storage },
      // Argon2 hashing and RSA key generation make the first request of a file slow on 2 cores.
      testTimeout: 20_000,
      hookTimeout: 30_000,
    },
  };
}

/**
 * The contract suite (test/contract/**, the same tests as the embedded projects run) with the okta identity
 * backend against the Okta org stand-in (test/contract/backend.ts reads PORTAL_TEST_IDENTITY), on SQLite storage:
 * in Okta mode the portal keeps only grants, throttles and notices, whichever storage holds them.
 */
function oktaContractProject() {
  const sqlite = project('sqlite');
  return {
    ...sqlite,
    test: {
      ...sqlite.test,
      name: 'okta',
      include: ['test/contract/**/*.test.ts', 'test/okta-check-against-org.test.ts'],
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
    globalSetup: ['test/support/postgres-global-setup.ts'],
    projects: [
      project('sqlite'),
      project('postgres'),
      oktaContractProject(),
      ...(process.env.OKTA_CHECK_DOMAIN ? [realOrgContractProject()] : []),
    ],
  },
});
