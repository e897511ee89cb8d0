import type { Db } from '../db/connection.js';
import type { Directory, User } from './directory.js';

/** The embedded default's demo accounts (README and start-up banner list them). */
export const DEMO_ACCOUNTS = [
  {
    email: 'alice@example.com',
    password: 'Wonderland-42',
    givenName: 'Alice',
    familyName: 'Liddell',
    country: 'GB',
    isFederated: false,
    description: 'regular user',
  },
  {
    email: 'sam@partner.example',
    password: 'Federated-42',
    givenName: 'Sam',
    familyName: 'Taylor',
    country: 'US',
    isFederated: true,
    description: 'federated user',
  },
] as const;

/** The `meta` row that remembers this data folder got its demo accounts. */
export const DEMO_SEEDED_KEY = 'demo_accounts_seeded';

/**
 * Creates the demo accounts once per data folder. Remembered in `meta` (when `db` is given, as the server does),
 * so a demo account someone deleted stays deleted. A folder seeded before that row existed counts as seeded when
 * either demo email is there.
 */
export async function seedDemoAccounts(directory: Directory, db?: Db, now = Date.now): Promise<User[]> {
  if (db?.prepare('SELECT 1 FROM meta WHERE key = ?').get(DEMO_SEEDED_KEY) !== undefined) return [];
  const created: User[] = [];
  const seededBefore = DEMO_ACCOUNTS.some((account) => directory.findByEmail(account.email) !== undefined);
  if (!seededBefore) {
    for (const { description: _description, ...account } of DEMO_ACCOUNTS) {
      created.push(await directory.createUser(account));
    }
  }
  db?.prepare('INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)').run(
    DEMO_SEEDED_KEY,
    new Date(now()).toISOString(),
  );
  return created;
}

/** The demo accounts this data folder still has (the banner lists these). */
export function existingDemoAccounts(directory: Directory): { email: string }[] {
  return DEMO_ACCOUNTS.filter((account) => directory.findByEmail(account.email) !== undefined).map(
    ({ email }) => ({ email }),
  );
}
