import type { FastifyInstance } from 'fastify';
import { apiCalls, FACTOR_NAMES, type FactorName } from 'shared-auth/contract';
import { callerOf } from '../../../auth/caller.js';
import { actorOf, refuseFederated, sessionIdOf } from '../../../factors/http.js';
import { registerCall } from '../../../http/register-call.js';
import { kindOf } from '../../../identity/kinds/registry.js';
import preferredMethodRoutes from './preferred.js';

/**
 * The calls of one factor: /api/multifactor/{googleauth|email}/:sub/{enroll,details,activate,opt-in,opt-out,reset}.
 * Every call needs a valid step-up grant of this session once the user has an active factor.
 */
function factorRoutes(factor: FactorName) {
  const calls = apiCalls.multifactor[factor];
  return async function routes(app: FastifyInstance) {
    app.addHook('preHandler', async (request, reply) => {
      const caller = callerOf(request);
      refuseFederated(caller.user);
      await app.stepUp.requireStepUp(caller.user.id, sessionIdOf(caller));
      reply.header('Cache-Control', 'no-store');
    });

    // What the set-up answers is the kind's (a secret to scan, or a code sent).
    registerCall(app, calls.enroll, async (request) => {
      const actor = await actorOf(app, request);
      const enrolment = await app.factors.enrol(actor, factor);
      request.log.info({ userId: actor.user.id }, kindOf(factor).enrolLogged);
      return enrolment;
    });

    registerCall(
      app,
      calls.details,
      async (request) => await app.factors.details(callerOf(request).user.id, factor),
    );

    registerCall(app, calls.activate, async (request) => {
      const actor = await actorOf(app, request);
      const result = await app.factors.activate(actor, factor, request.body.code);
      request.log.info({ userId: actor.user.id, factor }, '2-step factor activated');
      return result;
    });

    // Turning on, off and removing differ only in the change they ask for and what the log says.
    const changes = [
      [calls.optIn, 'optIn', '2-step factor turned on'],
      [calls.optOut, 'optOut', '2-step factor turned off'],
      [calls.reset, 'reset', '2-step factor removed'],
    ] as const;
    for (const [call, change, logged] of changes) {
      registerCall(app, call, async (request) => {
        const actor = await actorOf(app, request);
        const result = await app.factors[change](actor, factor);
        request.log.info({ userId: actor.user.id, factor }, logged);
        return result;
      });
    }
  };
}

/**
 * Every kind of factor (identity/kinds/registry.ts), each with its own hooks' scope, and the preferred method
 * (issue 22) in its own.
 */
export default async function multifactorRoutes(app: FastifyInstance) {
  for (const factor of FACTOR_NAMES) await app.register(factorRoutes(factor));
  await app.register(preferredMethodRoutes);
}
