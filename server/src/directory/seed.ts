import type { Sql } from '../db/sql.js';
import { metaEntries } from '../storage/meta.js';
import { DuplicateEmailError, type Directory, type User } from './directory.js';

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
export async function seedDemoAccounts(directory: Directory, sql?: Sql, now = Date.now): Promise<User[]> {
  const meta = sql && metaEntries(sql);
  if (meta && (await meta.has(DEMO_SEEDED_KEY))) return [];
  const created: User[] = [];
  let seededBefore = false;
  for (const account of DEMO_ACCOUNTS) {
    if ((await directory.findByEmail(account.email)) !== undefined) seededBefore = true;
  }
  if (!seededBefore) {
    for (const { description: _description, ...account } of DEMO_ACCOUNTS) {
      try {
        created.push(await directory.createUser(account));
      } catch (error) {
        // Another instance starting on the same database seeded it first.
        if (!(error instanceof DuplicateEmailError)) throw error;
      }
    }
  }
  await meta?.putIfAbsent(DEMO_SEEDED_KEY, new Date(now()).toISOString());
  return created;
}

/** The demo accounts this data folder still has (the banner lists these). */
export async function existingDemoAccounts(directory: Directory): Promise<{ email: string }[]> {
  const existing: { email: string }[] = [];
  for (const { email } of DEMO_ACCOUNTS) {
    if ((await directory.findByEmail(email)) !== undefined) existing.push({ email });
  }
  return existing;
}
