import type { FastifyInstance } from 'fastify';
import { apiCalls } from 'shared-auth/contract';
import { callerOf } from '../../../auth/caller.js';
import { actorOf, refuseFederated } from '../../../factors/http.js';
import { registerCall } from '../../../http/register-call.js';

/**
 * Recovery codes (issue 20): /api/recoverycodes/:sub (their state) and …/generate (a new set, shown once). Making
 * a set is a security change like the /multifactor calls: it needs this session's step-up grant when the user has
 * an active factor. Their use is the step-up's (routes/api/stepup) and the sign-in's.
 */
export default async function recoveryCodesRoutes(app: FastifyInstance) {
  app.addHook('preHandler', async (request, reply) => {
    refuseFederated(callerOf(request).user);
    reply.header('Cache-Control', 'no-store');
  });

  registerCall(app, apiCalls.recoveryCodesStatus, async (request) =>
    app.recoveryCodes.status(callerOf(request).user.id),
  );

  registerCall(app, apiCalls.recoveryCodesGenerate, async (request) => {
    const actor = await actorOf(app, request);
    // Authorization first, as every security change: the same refusal whichever backend holds the account.
    await app.stepUp.requireStepUp(actor.user.id, actor.grantKey);
    const generated = await app.recoveryCodes.generate(actor);
    request.log.info({ userId: actor.user.id }, 'recovery codes generated');
    return generated;
  });
}
