import type { FastifyInstance } from 'fastify';
import { settingsSchema } from 'shared-auth/contract';
import { sendJsonText } from '../../../http/json-text.js';

export default async function settingsRoutes(app: FastifyInstance) {
  // The shell loads these before anyone signs in, so no token; no-cache so an edited file shows after restart.
  app.get('/getSettings', { config: { public: true } }, async (_request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    return sendJsonText(reply, settingsSchema, app.config.settings);
  });
}
