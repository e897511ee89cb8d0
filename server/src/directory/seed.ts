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

/** Creates the demo accounts that are missing; existing ones (and their edits) are left alone. */
export async function seedDemoAccounts(directory: Directory): Promise<User[]> {
  const created: User[] = [];
  for (const { description: _description, ...account } of DEMO_ACCOUNTS) {
    if (!directory.findByEmail(account.email)) created.push(await directory.createUser(account));
  }
  return created;
}
