// `pnpm okta:check`: the contract suite (test/contract) against a REAL Okta org, when one is configured in the
// environment; otherwise it says plainly that nothing was checked. See the README's "Check against a real Okta
// org". Exit: 0 when it did not run or every checkable test passed, 1 when a test failed or the settings are
// incomplete. Tests that need what only the stand-in can do are reported as not checkable, never as passed.
// Arguments are vitest's file filters: `pnpm okta:check test/contract/profile.test.ts` checks that file only.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const CHECK_SETTINGS = ['OKTA_CHECK_DOMAIN', 'OKTA_CHECK_CLIENT_ID', 'OKTA_CHECK_PASSWORD_CLIENT_ID'];
const SERVICE_SETTINGS = ['OKTA_CLIENT_ID', 'OKTA_API_TOKEN'];
const NOT_CHECKABLE_TAG = '[not checkable against a real org]';
const serverDir = path.resolve(import.meta.dirname, '..');
const fileFilters = process.argv.slice(2);

const given = CHECK_SETTINGS.filter((name) => process.env[name]);
if (given.length === 0) {
  console.log(
    [
      'okta:check DID NOT RUN: no real Okta org is configured, so nothing was checked against Okta.',
      `To run it, set ${CHECK_SETTINGS.join(', ')} and the service app's settings (OKTA_CLIENT_ID and`,
      'OKTA_PRIVATE_KEY[_FILE], or OKTA_API_TOKEN); see the README\'s "Check against a real Okta org".',
    ].join('\n'),
  );
  process.exit(0);
}
const missing = CHECK_SETTINGS.filter((name) => !process.env[name]);
if (!SERVICE_SETTINGS.some((name) => process.env[name])) missing.push('OKTA_CLIENT_ID (or OKTA_API_TOKEN)');
if (missing.length > 0) {
  console.error(`okta:check cannot run: ${given.join(', ')} set but ${missing.join(', ')} missing.`);
  process.exit(1);
}

const work = mkdtempSync(path.join(tmpdir(), 'okta-check-'));
const report = path.join(work, 'report.json');
console.log(
  `okta:check: the contract suite${fileFilters.length > 0 ? ` (${fileFilters.join(' ')})` : ''} against ${process.env.OKTA_CHECK_DOMAIN} …`,
);
const run = spawnSync(
  process.execPath,
  [
    path.join(serverDir, 'node_modules', 'vitest', 'vitest.mjs'),
    'run',
    '--project',
    'okta-org',
    '--reporter=dot',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...fileFilters,
  ],
  { cwd: serverDir, stdio: 'inherit', env: { ...process.env, PORTAL_TEST_IDENTITY: 'okta-org' } },
);

let results;
try {
  results = JSON.parse(readFileSync(report, 'utf8'));
} catch {
  console.error(`okta:check: the suite ended (exit ${run.status}) without a report: see the output above.`);
  process.exit(1);
} finally {
  rmSync(work, { recursive: true, force: true });
}

const passed = [];
const failed = [];
const notCheckable = [];
/** The reason after the tag (first line), or undefined when the messages are not a not-checkable refusal. */
const notCheckableReason = (messages) =>
  messages.includes(NOT_CHECKABLE_TAG)
    ? messages
        .slice(messages.indexOf(NOT_CHECKABLE_TAG) + NOT_CHECKABLE_TAG.length)
        .split('\n')[0]
        ?.trim()
    : undefined;
for (const file of results.testResults ?? []) {
  for (const test of file.assertionResults ?? []) {
    if (test.status === 'passed') passed.push(test.fullName);
    else if (test.status === 'failed') {
      const reason = notCheckableReason((test.failureMessages ?? []).join('\n'));
      if (reason === undefined) failed.push(test.fullName);
      else notCheckable.push(`${test.fullName} (${reason})`);
    }
  }
  // A file that failed outside its tests (a beforeAll, its top level): its tests did not run, so it is counted
  // here, never silently dropped.
  if (file.status === 'failed' && file.message) {
    const name = path.relative(serverDir, file.name ?? '');
    const unrun = (file.assertionResults ?? []).filter((t) => t.status !== 'passed' && t.status !== 'failed');
    const what = `${name} (the whole file, ${unrun.length} tests not run`;
    const reason = notCheckableReason(file.message);
    if (reason === undefined) failed.push(`${what}: ${file.message.split('\n')[0]})`);
    else notCheckable.push(`${what}: ${reason})`);
  }
}
console.log(`\nokta:check against ${process.env.OKTA_CHECK_DOMAIN}:`);
console.log(`  passed        ${passed.length}`);
console.log(`  failed        ${failed.length}`);
console.log(
  `  not checkable ${notCheckable.length} (they need the stand-in; they ran against it in pnpm test)`,
);
for (const name of failed) console.log(`  FAILED: ${name}`);
for (const name of notCheckable) console.log(`  not checkable: ${name}`);
process.exit(failed.length > 0 || passed.length === 0 ? 1 : 0);
