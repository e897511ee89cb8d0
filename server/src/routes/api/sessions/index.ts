import type { FastifyInstance } from 'fastify';
import { apiCalls } from 'shared-auth/contract';
import { callerOf } from '../../../auth/caller.js';
import { actorOf, refuseFederated } from '../../../factors/http.js';
import { registerCall } from '../../../http/register-call.js';

/** The caller's provider session (its access token's `sid`), when it has one. */
function sessionUidOf(claims: { sid?: unknown }): string | undefined {
  return typeof claims.sid === 'string' && claims.sid !== '' ? claims.sid : undefined;
}

/**
 * Devices (issue 22): GET /api/v1/users/:sub/sessions (the caller's live sessions, its own first), DELETE
 * …/sessions/:id (sign out one other), POST …/sessions/sign-out-others and …/sign-out-everywhere, the changes under
 * step-up. Federated users are refused like the other security calls; Okta mode answers 501 sessions_unavailable
 * but for sign-out-everywhere (devices/sessions.ts).
 */
export default async function sessionsRoutes(app: FastifyInstance) {
  app.addHook('preHandler', async (request, reply) => {
    refuseFederated(callerOf(request).user);
    reply.header('Cache-Control', 'no-store');
  });

  registerCall(app, apiCalls.sessions, async (request) => {
    const caller = callerOf(request);
    return app.devices.list(caller.user.id, sessionUidOf(caller.claims));
  });

  registerCall(app, apiCalls.sessionSignOut, async (request) => {
    const actor = await actorOf(app, request);
    const list = await app.devices.signOut(actor, request.params.id);
    request.log.info({ userId: actor.user.id }, 'session signed out from the devices list');
    return list;
  });

  registerCall(app, apiCalls.sessionsSignOutOthers, async (request) => {
    const actor = await actorOf(app, request);
    const list = await app.devices.signOutOthers(actor);
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
