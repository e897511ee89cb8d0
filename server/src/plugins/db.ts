import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { openDatabase } from '../db/connection.js';

/** The SQLite connection (migrated on open), closed with the app. */
export default fp(
  async function dbPlugin(app: FastifyInstance) {
    const db = openDatabase(app.config.DATA_DIR);
    app.decorate('db', db);
    app.addHook('onClose', async () => {
      db.close();
    });
  },
  { name: 'db' },
);
