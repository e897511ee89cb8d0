import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Directory, type PasswordHashing } from '../../directory/directory.js';
import { seedDemoAccounts } from '../../directory/seed.js';

/**
 * Profile: the user directory. Provides `app.directory` (accounts, profiles, passwords). Depends on: storage.
 * The demo accounts are seeded once per data folder, only where they may exist: the development default or an
 * explicit DEMO_ACCOUNTS=true (never with https; see config/env.ts).
 */
export default fp(
  async function directoryPlugin(app: FastifyInstance, options: { passwordHashing?: PasswordHashing }) {
    // Production's argon2id cost unless buildApp was given another (tests only: BuildOptions).
    const directory = new Directory(app.storage.users, options.passwordHashing);
    app.decorate('directory', directory);
    if (app.config.demoAccounts) {
      const created = await seedDemoAccounts(directory, app.storage.sql, app.now);
      if (created.length > 0)
        app.log.info({ users: created.map((user) => user.email) }, 'demo accounts created');
    }
  },
  { name: 'directory', dependencies: ['storage'] },
);
