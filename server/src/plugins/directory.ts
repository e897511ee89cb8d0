import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Directory } from '../directory/directory.js';
import { seedDemoAccounts } from '../directory/seed.js';

/** The user store; in embedded mode the demo accounts are created on first start. */
export default fp(
  async function directoryPlugin(app: FastifyInstance) {
    const directory = new Directory(app.db);
    app.decorate('directory', directory);
    if (app.config.embedded) {
      const created = await seedDemoAccounts(directory);
      if (created.length > 0)
        app.log.info({ users: created.map((user) => user.email) }, 'demo accounts created');
    }
  },
  { name: 'directory', dependencies: ['db'] },
);
