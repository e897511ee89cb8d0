/**
 * `pnpm okta:check` (scripts/okta-check.mjs) without a real org: it says plainly that nothing was checked and
 * succeeds; with the org's settings only partly given it fails and names every missing one, before running
 * anything. (With a real org configured it runs test/contract as project okta-org: test/contract/real-org.ts.)
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SCRIPT = path.resolve(import.meta.dirname, '..', 'scripts', 'okta-check.mjs');

function check(env: Record<string, string>) {
  // Only what the test gives: a developer's own OKTA_* settings must not leak into the run.
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => !entry[0].startsWith('OKTA_') && entry[1] !== undefined,
    ),
  );
  const run = spawnSync(process.execPath, [SCRIPT], { env: { ...base, ...env }, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('pnpm okta:check', () => {
  it('without a real org configured it says that it did not run and that nothing was checked', () => {
    const run = check({});
    expect(run.status).toBe(0);
    expect(run.output).toContain('okta:check DID NOT RUN');
    expect(run.output).toContain('nothing was checked against Okta');
    expect(run.output).not.toContain('passed');
  });

  it('with the org only partly configured it fails before running anything, naming each missing setting', () => {
    const run = check({ OKTA_CHECK_DOMAIN: 'https://dev-0000.okta.com' });
    expect(run.status).toBe(1);
    expect(run.output).toContain('OKTA_CHECK_CLIENT_ID');
    expect(run.output).toContain('OKTA_CHECK_PASSWORD_CLIENT_ID');
    expect(run.output).toContain('OKTA_CLIENT_ID (or OKTA_API_TOKEN)');
    expect(run.output).not.toContain('the contract suite against');
  });

  it('the service app alone is not enough: the check needs its own sign-in app', () => {
    const run = check({
      OKTA_CHECK_DOMAIN: 'https://dev-0000.okta.com',
      OKTA_CHECK_CLIENT_ID: '0oaPortal',
      OKTA_CLIENT_ID: '0oaService',
    });
    expect(run.status).toBe(1);
    expect(run.output).toContain('OKTA_CHECK_PASSWORD_CLIENT_ID missing');
  });
});
