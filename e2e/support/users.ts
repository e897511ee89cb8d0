import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { E2E_DATA_DIR, REPO_ROOT } from './paths.js';

const DIRECTORY_CLI = path.join(REPO_ROOT, 'server', 'dist', 'directory-cli.js');

/** The directory CLI's `add-user` (server/src/directory-cli.ts), as a function. */
type AddUser = (
  account: {
    email: string;
    password: string;
    givenName: string;
    familyName: string;
    country: string;
    isFederated: boolean;
  },
  env: NodeJS.ProcessEnv,
) => Promise<{ id: string }>;
let addUser: Promise<AddUser> | undefined;

/**
 * The CLI's code loaded once into this worker: a Node process per account cost 0.74 s of CPU (0.53 s user, 0.21 s
 * system, most of it loading the server's modules). The command itself is still run by the cluster's tests
 * (support/cluster.ts) and the server's (directory.test.ts, operations.test.ts).
 */
function directoryCli(): Promise<AddUser> {
  addUser ??= import(pathToFileURL(DIRECTORY_CLI).href).then(
    (module: { addUser: AddUser }) => module.addUser,
  );
  return addUser;
}

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
 * A new account in the running server's directory, through the operators' CLI's code: each test gets its own.
 * `dataDir` is another server's data folder (a test that runs a server of its own); the suite's server by default.
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
  const add = await directoryCli();
  const { id: sub } = await add(
    { ...user, isFederated: options.federated ?? false },
    { ...process.env, DATA_DIR: options.dataDir ?? E2E_DATA_DIR },
  );
  return { ...user, sub, name: `${user.givenName} ${user.familyName}` };
}
