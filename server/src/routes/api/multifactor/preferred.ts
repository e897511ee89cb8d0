import type { FastifyInstance } from 'fastify';
import { apiCalls } from 'shared-auth/contract';
import { callerOf } from '../../../auth/caller.js';
import { actorOf, refuseFederated } from '../../../factors/http.js';
import { registerCall } from '../../../http/register-call.js';

/**
 * PUT /api/v1/users/:sub/multifactor/preferred (issue 22): "Use by default" on one of the holder's active 2-step
 * methods. The step-up and the method's check are the domain's (factors/preferred-method.ts), so the passkeys Okta
 * holds count as in the challenge.
 */
export default async function preferredMethodRoutes(app: FastifyInstance) {
  app.addHook('preHandler', async (request, reply) => {
    refuseFederated(callerOf(request).user);
    reply.header('Cache-Control', 'no-store');
  });

  registerCall(app, apiCalls.preferredMethod, async (request) => {
    const actor = await actorOf(app, request);
    const preferredMethod = await app.preferredMethods.choose(actor, request.body.method);
    request.log.info({ userId: actor.user.id, method: preferredMethod }, 'preferred 2-step method chosen');
    return { preferredMethod };
  });
}
