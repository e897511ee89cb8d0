import type { FastifyInstance } from 'fastify';
import { apiCalls } from 'shared-auth/contract';
import { registerCall } from '../../../http/register-call.js';

export default async function settingsRoutes(app: FastifyInstance) {
  // The shell loads these before anyone signs in, so no token; no-cache so an edited file shows after restart.
  registerCall(app, apiCalls.settings, async (_request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    return app.config.settings;
  });
}
