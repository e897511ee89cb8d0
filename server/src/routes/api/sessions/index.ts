import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiCalls } from 'shared-auth/contract';
import { callerOf } from '../../../auth/caller.js';
import type { VerifiedToken } from '../../../auth/verifier.js';
import { actorOf, refuseFederatedWhenPortalData } from '../../../factors/http.js';
import { registerCall } from '../../../http/register-call.js';

/** The caller's access token as the auth hook verified it: which session is "This device". */
function tokenOf(request: FastifyRequest): VerifiedToken {
  const caller = callerOf(request);
  return { userId: caller.user.id, claims: caller.claims };
}

/**
 * Devices (issue 22): GET /api/v1/users/:sub/sessions (the caller's live sessions, its own first), DELETE
 * …/sessions/:id (sign out one other), POST …/sessions/sign-out-others and …/sign-out-everywhere, the changes under
 * step-up. Federated users are refused in embedded mode only (there the sessions are the portal's own provider's;
 * in Okta mode the org's). Okta mode lists the org's sign-ins the API saw (devices/org-sessions.ts).
 */
export default async function sessionsRoutes(app: FastifyInstance) {
  app.addHook('preHandler', async (request, reply) => {
    refuseFederatedWhenPortalData(app, callerOf(request).user);
    reply.header('Cache-Control', 'no-store');
  });

  registerCall(app, apiCalls.sessions, async (request) => {
    return app.devices.list(tokenOf(request));
  });

  registerCall(app, apiCalls.sessionSignOut, async (request) => {
    const actor = await actorOf(app, request);
    const list = await app.devices.signOut(actor, tokenOf(request), request.params.id);
    request.log.info({ userId: actor.user.id }, 'session signed out from the devices list');
    return list;
  });

  registerCall(app, apiCalls.sessionsSignOutOthers, async (request) => {
    const actor = await actorOf(app, request);
    const list = await app.devices.signOutOthers(actor, tokenOf(request));
    request.log.info({ userId: actor.user.id }, 'other sessions signed out from the devices list');
    return list;
  });

  registerCall(app, apiCalls.sessionsSignOutEverywhere, async (request) => {
    const actor = await actorOf(app, request);
    const answer = await app.devices.signOutEverywhere(actor);
    request.log.info({ userId: actor.user.id }, 'every session signed out from the devices list');
    return answer;
  });
}
