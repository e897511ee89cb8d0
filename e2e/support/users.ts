import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { E2E_DATA_DIR, REPO_ROOT } from './paths.js';

const run = promisify(execFile);
const DIRECTORY_CLI = path.join(REPO_ROOT, 'server', 'dist', 'directory-cli.js');

export interface TestUser {
  sub: string;
  email: string;
  password: string;
  givenName: string;
  familyName: string;
  country: string;
  name: string;
}

/** A new password for any test user: shares no 3 characters with createUser()'s emails (e2e-<8 hex>@example.org)
 * and meets every rule. (A password made from Date.now() can share 3 digits with the email's hex.) */
export const NEW_PASSWORD = 'Tumbling-Down-7Q';

export const ALICE = { email: 'alice@example.com', password: 'Wonderland-42', name: 'Alice Liddell' };
export const SAM = { email: 'sam@partner.example', password: 'Federated-42', name: 'Sam Taylor' };

/**
 * A new account in the running server's directory, through the operators' CLI: each test gets its own. `dataDir`
 * is another server's data folder (a test that runs a server of its own); the suite's server by default.
 */
export async function createUser(
  options: { federated?: boolean; country?: string; dataDir?: string } = {},
): Promise<TestUser> {
  const id = randomUUID().slice(0, 8);
  const user = {
    email: `e2e-${id}@example.org`,
    password: `Pw-${randomUUID()}-Zx9`,
    givenName: 'Tess',
    familyName: `Tester ${id}`,
    country: options.country ?? 'DE',
  };
  const args = [
    DIRECTORY_CLI,
    'add-user',
    '--email',
    user.email,
    '--password',
    user.password,
    '--given-name',
    user.givenName,
    '--family-name',
    user.familyName,
    '--country',
    user.country,
    '--data-dir',
    options.dataDir ?? E2E_DATA_DIR,
    ...(options.federated ? ['--federated'] : []),
  ];
  const { stdout } = await run(process.execPath, args);
  const created = JSON.parse(stdout) as { id?: string; sub?: string };
  const sub = created.sub ?? created.id;
  if (!sub) throw new Error(`The directory CLI did not return the new user's id: ${stdout}`);
  return { ...user, sub, name: `${user.givenName} ${user.familyName}` };
}
