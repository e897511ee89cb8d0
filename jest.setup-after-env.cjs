// Runs after the test framework is installed, so Testing Library still registers its cleanup after each test.
// findBy* and waitFor wait up to 20 s instead of 1 s: on a 2-core machine kept busy by a browser suite, antd renders
// several times slower in jsdom and the edit forms come as chunks of their own. A wait ends as soon as its
// condition holds, so this costs nothing when the test passes.
/* global expect */
const path = require('node:path');

if (typeof window !== 'undefined') {
  let testingLibrary;
  try {
    // From the test file's folder: each package configures its own copy (the root run's cwd has none).
    const from = path.dirname(expect.getState().testPath);
    testingLibrary = require(require.resolve('@testing-library/react', { paths: [from] }));
  } catch {
    // a package without Testing Library
  }
  testingLibrary?.configure({ asyncUtilTimeout: 20_000 });
}
