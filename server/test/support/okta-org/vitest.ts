import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startOktaOrg, type OktaOrg, type OktaOrgOptions } from './org.js';

/**
 * Starts one Okta org stand-in for the test file and stops it after; after each test, fails it when the stand-in
 * recorded a violation (a request or answer outside Okta's specification, or a call it does not simulate). A test
 * that provokes one on purpose takes it with `org().takeViolations()`.
 */
export function useOktaOrg(options?: OktaOrgOptions): () => OktaOrg {
  let org: OktaOrg | undefined;
  beforeAll(async () => {
    org = await startOktaOrg(options);
  });
  afterEach(() => {
    if (org) expect(org.takeViolations(), 'Okta org stand-in violations').toEqual([]);
  });
  afterAll(async () => {
    await org?.close();
  });
  return () => {
    if (!org) throw new Error('the Okta org stand-in is not started (useOktaOrg runs in beforeAll)');
    return org;
  };
}
