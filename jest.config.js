// One jest run for every browser package (`pnpm test:browser`): each package is a project with its own settings
// (jest.base.js) and its own node_modules, and jest starts once and shares its workers among all their files.
// shared-router has no tests.
import { TEST_TIMEOUT_MS } from './jest.base.js';

export default {
  testTimeout: TEST_TIMEOUT_MS,
  // The main process only hands out files: every core runs a worker (jest leaves one idle by default).
  maxWorkers: '100%',
  projects: [
    '<rootDir>/shared-auth',
    '<rootDir>/shared-ui',
    '<rootDir>/shared-stepup',
    '<rootDir>/mount-runtime',
    '<rootDir>/remote-harness',
    '<rootDir>/shell',
    '<rootDir>/remote-profile',
    '<rootDir>/remote-password',
    '<rootDir>/remote-security',
    '<rootDir>/remote-activity',
  ],
};
