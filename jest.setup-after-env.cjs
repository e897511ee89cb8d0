// Runs after the test framework is installed, so Testing Library still registers its cleanup after each test.
// findBy* and waitFor wait up to 5 s instead of 1 s: on a busy 2-core CI machine antd renders slowly in jsdom and
// the edit forms come as chunks of their own.
if (typeof window !== 'undefined') {
  let testingLibrary;
  try {
    testingLibrary = require(require.resolve('@testing-library/react', { paths: [process.cwd()] }));
  } catch {
    // a package without Testing Library
  }
  testingLibrary?.configure({ asyncUtilTimeout: 5000 });
}
