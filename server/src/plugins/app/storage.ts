import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { openStorage } from '../../storage/open.js';

/**
 * Storage. Provides `app.storage` (every domain's store: storage/index.ts) and `app.database` (the database
 * under it, for the readiness probe), closed with the app. Depends on: `app.config` (DATA_DIR, DATABASE_URL).
 */
export default fp(
  async function storagePlugin(app: FastifyInstance) {
    const opened = await openStorage(app.config, (message, error) => app.log.warn({ err: error }, message));
    app.decorate('database', opened.database);
    app.decorate('storage', opened.storage);
    // Start-up may wait for another process's lock; serving may not (plugins/errors.ts answers 503).
    app.addHook('onReady', async () => opened.serving());
    app.addHook('onClose', async () => opened.close());
  },
  { name: 'storage' },
);
