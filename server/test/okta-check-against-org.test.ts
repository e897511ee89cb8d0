/**
 * `pnpm okta:check` (scripts/okta-check.mjs) end to end, with the Okta org stand-in in place of a real org: the
 * script runs the contract suite as project okta-org through test/contract/real-org.ts, which creates throwaway
 * users with the service app, signs them in with the password grant of a native app, reads them back, and deletes
 * them at the end. Everything goes over HTTP to the stand-in, which validates it against Okta's published spec.
 * Two contract files only, to keep it short; the script's own file filters choose them.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import path from 'node:path';
import type { JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOktaOrg, type OktaOrg } from './support/okta-org/index.js';
import { OKTA_PORTAL_CLIENT_ID } from './support/okta-portal.js';

const SERVER_DIR = path.resolve(import.meta.dirname, '..');
const PASSWORD_CLIENT_ID = '0oaCheckNativeApp';
const SERVICE_CLIENT_ID = '0oaCheckServiceApp';
const SERVICE_KEY_ID = 'check-service-1';

let org: OktaOrg;
let servicePrivateKey: string;

beforeAll(async () => {
  org = await startOktaOrg({
    authorizationServer: {
      clients: [
        {
          clientId: OKTA_PORTAL_CLIENT_ID,
          redirectUris: ['http://localhost:3400/login/callback'],
          postLogoutRedirectUris: ['http://localhost:3400/'],
        },
        { clientId: PASSWORD_CLIENT_ID, passwordGrant: true },
      ],
    },
  });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  servicePrivateKey = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  org.registerServiceApp({
    clientId: SERVICE_CLIENT_ID,
    publicJwk: { ...(publicKey.export({ format: 'jwk' }) as JWK), kid: SERVICE_KEY_ID, alg: 'RS256' },
    scopes: ['okta.users.read', 'okta.users.manage'],
  });
});

afterAll(async () => {
  await org?.close();
});

/** The script in a child process (async: the stand-in answers from this process meanwhile). */
function runCheck(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null; output: string }> {
  // Only what the check is given: no OKTA_* of the developer's, and nothing of this vitest run (its worker
  // variables would confuse the script's own vitest; PORTAL_TEST_IDENTITY is the script's to set).
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        entry[1] !== undefined &&
        !entry[0].startsWith('OKTA_') &&
        !entry[0].startsWith('VITEST') &&
        !entry[0].startsWith('PORTAL_TEST_'),
    ),
  );
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(SERVER_DIR, 'scripts', 'okta-check.mjs'), ...args], {
      cwd: SERVER_DIR,
      env: { ...base, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

describe('pnpm okta:check against the Okta org stand-in', () => {
  it('runs the chosen contract files against the org, passes what is checkable, and deletes every user it made', async () => {
    const run = await runCheck(
      [
        'test/contract/profile.test.ts',
        'test/contract/factors.test.ts',
        'test/contract/authorization-matrix.test.ts',
      ],
      {
        OKTA_CHECK_DOMAIN: org.url,
        OKTA_CHECK_CLIENT_ID: OKTA_PORTAL_CLIENT_ID,
        OKTA_CHECK_PASSWORD_CLIENT_ID: PASSWORD_CLIENT_ID,
        OKTA_CLIENT_ID: SERVICE_CLIENT_ID,
        OKTA_PRIVATE_KEY: servicePrivateKey,
        OKTA_KEY_ID: SERVICE_KEY_ID,
      },
    );
    const summary = run.output.slice(run.output.lastIndexOf('okta:check against'));
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain('test/contract/profile.test.ts test/contract/factors.test.ts');
    const passed = Number(/passed\s+(\d+)/.exec(summary)?.[1]);
    expect(passed, summary).toBeGreaterThan(0);
    expect(summary).toMatch(/failed\s+0\n/);
    // The email factor's tests need the code Okta mailed: a real org cannot hand it back.
    expect(summary).toMatch(/not checkable: .*\(reading back the email code Okta sent\)/);
    // A file that stops in its set-up (the matrix needs a sign-in in the past) is counted, not dropped.
    expect(summary).toMatch(/not checkable: .*authorization-matrix/);
    // Only what the org stand-in holds: the check ran against it, over Okta's published shapes.
    expect(org.violations()).toEqual([]);

    const requests = org.requests();
    const created = requests
      .filter((r) => r.operationId === 'createUser' && r.status === 200)
      .map((r) => (r.responseBody as { id: string }).id);
    expect(created.length).toBeGreaterThan(0);
    for (const id of created) expect(org.user(id), `user ${id} left in the org`).toBeUndefined();
    // Signed in with the password grant, at the org's default authorization server.
    expect(requests.some((r) => r.operationId === 'getUser')).toBe(true);
    // A second vitest run of three contract files: about 10 s quiet, 25 s on a busy machine (a bound only).
  }, 120_000);
});
