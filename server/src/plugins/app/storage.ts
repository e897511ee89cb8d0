import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { openStorage } from '../../storage/open.js';

/**
 * Storage. Provides `app.storage` (every domain's store: storage/index.ts) and `app.db` (the SQLite connection
 * under it), closed with the app. Depends on: `app.config` (DATA_DIR).
 */
export default fp(
  async function storagePlugin(app: FastifyInstance) {
    const opened = openStorage(app.config);
    app.decorate('db', opened.db);
    app.decorate('storage', opened.storage);
    app.addHook('onClose', async () => opened.close());
  },
  { name: 'storage' },
);
