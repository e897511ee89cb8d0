// Jest settings every browser package shares: swc for TS/TSX, jsdom, and the polyfills antd and react-router need.
import { fileURLToPath } from 'node:url';

const setupFile = fileURLToPath(new URL('./jest.setup.cjs', import.meta.url));
const setupAfterEnvFile = fileURLToPath(new URL('./jest.setup-after-env.cjs', import.meta.url));

/** @returns {import('jest').Config} */
export function jestConfig() {
  return {
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
    // antd renders slowly under jsdom; a whole user flow can take a few seconds.
    testTimeout: 60000,
    clearMocks: true,
    restoreMocks: true,
  };
}
