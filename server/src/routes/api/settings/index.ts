import type { FastifyInstance } from 'fastify';
import { apiCalls, type Settings } from 'shared-auth/contract';
import { registerCall } from '../../../http/register-call.js';

export default async function settingsRoutes(app: FastifyInstance) {
  // The shell loads these before anyone signs in, so no token; no-cache so an edited file shows after restart.
  registerCall(app, apiCalls.settings, async (_request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    // The server's mode, not the file, says whose the sessions and events are (the shell's Devices & activity).
    const accountDataFrom: Settings['AccountDataFrom'] =
      app.config.identityBackend === 'embedded' ? 'portal' : 'org';
    return { ...app.config.settings, AccountDataFrom: accountDataFrom };
  });
}
