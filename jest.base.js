// Jest settings every browser package shares: swc for TS/TSX, jsdom, and the polyfills antd and react-router need.
// Each package's jest.config.js is one project of the root jest.config.js (one run for all of them).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const setupFile = fileURLToPath(new URL('./jest.setup.cjs', import.meta.url));
const setupAfterEnvFile = fileURLToPath(new URL('./jest.setup-after-env.cjs', import.meta.url));

/**
 * antd renders slowly under jsdom; a whole user flow can take a few seconds. Half of that was jsdom's selector
 * engine: nwsapi 2.2.25 bounded its cache of compiled selectors to 1,000 (least recently used first out), and
 * getComputedStyle matches every rule of antd's injected styles in turn, more distinct selectors than that, so
 * every lookup missed and compiled again. patches/nwsapi@2.2.28.patch (package.json, pnpm.patchedDependencies)
 * raises the bound to 100,000: the Password page's tests took 60.4 s of CPU before, 22.9 s after. A run-wide option: the root
 * jest.config.js sets it too, since jest reads no project's own in a run of several.
 */
export const TEST_TIMEOUT_MS = 60000;

/**
 * @param {string} packageDir the package's folder (its jest.config.js passes import.meta.dirname)
 * @returns {import('jest').Config}
 */
export function jestConfig(packageDir) {
  const { name } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  return {
    // Names the package in the root run's output.
    displayName: name,
    rootDir: packageDir,
    testEnvironment: 'jsdom',
    testEnvironmentOptions: { customExportConditions: ['portal-source', 'browser', 'require', 'default'] },
    transform: {
      '^.+\\.(t|j)sx?$': [
        '@swc/jest',
        {
          jsc: {
            parser: { syntax: 'typescript', tsx: true },
            transform: { react: { runtime: 'automatic' } },
            target: 'es2022',
          },
          module: { type: 'commonjs' },
        },
      ],
    },
    // Sources import siblings as './x.js' (Node ESM style); resolve them to the .ts/.tsx files.
    moduleNameMapper: {
      '^(\\.{1,2}/.*)\\.js$': '$1',
      '\\.(css|svg|png)$': fileURLToPath(new URL('./jest.file-stub.cjs', import.meta.url)),
    },
    // antd's icons and colors ship ESM only; let swc turn them into CommonJS like the sources.
    transformIgnorePatterns: ['/node_modules/(?!\\.pnpm/|@ant-design/|@rc-component/)'],
    setupFiles: [setupFile],
    setupFilesAfterEnv: ['@testing-library/jest-dom', setupAfterEnvFile],
    testMatch: ['<rootDir>/src/**/*.test.{ts,tsx}'],
    testTimeout: TEST_TIMEOUT_MS,
    clearMocks: true,
    restoreMocks: true,
  };
}
