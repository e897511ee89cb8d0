import type { FastifyInstance } from 'fastify';
import { API_ERRORS, apiCalls } from 'shared-auth/contract';
import { callerOf } from '../../../auth/caller.js';
import { refuseFederated } from '../../../factors/http.js';
import { refusal } from '../../../http/errors.js';
import { registerCall } from '../../../http/register-call.js';

/** The refusal of Okta mode, whose accounts' events are the org's (its System Log, not read yet). */
export const ACTIVITY_UNAVAILABLE_ERROR =
  "Your organization's sign-in service keeps this account's activity; it cannot be shown here yet.";

/**
 * Activity (issue 22): GET /api/v1/users/:sub/activity, the caller's security events of the last 90 days, newest
 * first, paged (`before`, `limit`). Read only: the events are written by the changes they record, never from here.
 * Federated users are refused like the other security calls; Okta mode answers 501 activity_unavailable (never an
 * empty list, which would say "nothing happened").
 */
export default async function activityRoutes(app: FastifyInstance) {
  app.addHook('preHandler', async (request, reply) => {
    refuseFederated(callerOf(request).user);
    reply.header('Cache-Control', 'no-store');
  });

  registerCall(app, apiCalls.activity, async (request) => {
    if (!app.activity.enabled) throw refusal(API_ERRORS.activityUnavailable, ACTIVITY_UNAVAILABLE_ERROR);
    const { before, limit } = request.query;
    return app.activity.page(callerOf(request).user.id, {
      before,
      limit: limit === undefined ? undefined : Number(limit),
    });
  });
}
