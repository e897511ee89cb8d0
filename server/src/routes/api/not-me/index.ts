import type { FastifyInstance } from 'fastify';
import { apiCalls } from 'shared-auth/contract';
import { callerOf } from '../../../auth/caller.js';
import { actorOf, refuseFederatedWhenPortalData } from '../../../factors/http.js';
import { registerCall } from '../../../http/register-call.js';

/**
 * "This wasn't me" on an event of the activity (issue 22): POST /api/v1/users/:sub/activity/not-me `{ eventId }`
 * signs out every session of the account, the caller's too, with a notice (devices/not-me.ts). No step-up: it only
 * takes access away. Federated users are refused in embedded mode only (there the sessions are the portal's own
 * provider's; in Okta mode the org's); the API's flood guard counts it like every call.
 */
export default async function notMeRoutes(app: FastifyInstance) {
  app.addHook('preHandler', async (request, reply) => {
    refuseFederatedWhenPortalData(app, callerOf(request).user);
    reply.header('Cache-Control', 'no-store');
  });

  registerCall(app, apiCalls.activityNotMe, async (request) => {
    const actor = await actorOf(app, request);
    const answer = await app.notMe.report.report(actor, request.body.eventId);
    request.log.info(
      { userId: actor.user.id },
      "every session signed out: an event reported as not the holder's",
    );
    return answer;
  });
}
