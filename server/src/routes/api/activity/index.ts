import type { FastifyInstance } from 'fastify';
import { ACTIVITY_CURSOR_ERROR, ACTIVITY_CURSOR_PATTERN, API_ERRORS, apiCalls } from 'shared-auth/contract';
import { callerOf } from '../../../auth/caller.js';
import { refuseFederatedWhenPortalData } from '../../../factors/http.js';
import { refusal } from '../../../http/errors.js';
import { registerCall } from '../../../http/register-call.js';

/**
 * Okta mode's refusal when the portal's credentials may not read the org's System Log (no `okta.logs.read`, or
 * Okta's 403): the org keeps the events, and an empty list would say "nothing happened".
 */
export const ACTIVITY_UNAVAILABLE_ERROR =
  "Your organization's sign-in service keeps this account's activity; it cannot be shown here yet.";

/**
 * Activity (issue 22): GET /api/v1/users/:sub/activity, the caller's security events of the last 90 days, newest
 * first, paged (`before`, `limit`). Read only: the events are written by the changes they record, never from here.
 * Federated users are refused in embedded mode only (there the events are the portal's own provider's; in Okta
 * mode the org's). Embedded mode reads the portal's events; Okta mode reads the org's System Log for the caller's
 * own user id (the token's, checked against the path by the auth hook: nothing of the request names whose events
 * are read). Each mode takes only its own cursor form: the other is the same 400 as any `before` that is not one.
 */
export default async function activityRoutes(app: FastifyInstance) {
  app.addHook('preHandler', async (request, reply) => {
    refuseFederatedWhenPortalData(app, callerOf(request).user);
    reply.header('Cache-Control', 'no-store');
  });

  registerCall(app, apiCalls.activity, async (request) => {
    const { before, limit } = request.query;
    const query = { before, limit: limit === undefined ? undefined : Number(limit) };
    const { user } = callerOf(request);
    if (app.orgActivity) {
      const answer = await app.orgActivity.page(user.id, query);
      if (answer.kind === 'unavailable') {
        throw refusal(API_ERRORS.activityUnavailable, ACTIVITY_UNAVAILABLE_ERROR);
      }
      if (answer.kind === 'cursor-refused') throw refusal(API_ERRORS.invalidRequest, ACTIVITY_CURSOR_ERROR);
      return answer.page;
    }
    if (!app.activity.enabled) throw refusal(API_ERRORS.activityUnavailable, ACTIVITY_UNAVAILABLE_ERROR);
    if (before !== undefined && !ACTIVITY_CURSOR_PATTERN.test(before)) {
      throw refusal(API_ERRORS.invalidRequest, ACTIVITY_CURSOR_ERROR);
    }
    return app.activity.page(user.id, query);
  });
}
