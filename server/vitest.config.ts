import { defineConfig } from 'vitest/config';

// The workspace's export condition for TypeScript sources (tsconfig.base.json customConditions): shared-auth
// resolves to src/, so tests need no prior build of it. Only this one is added: listing node/import here
// changes how externalised CommonJS packages (e.g. helmet) load.
const conditions = ['portal-source'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    environment: 'node',
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Argon2 hashing and RSA key generation make the first request of a file slow on 2 cores.
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
