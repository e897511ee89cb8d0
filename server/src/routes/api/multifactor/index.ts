import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  activateBodySchema,
  emailEnrollResponseSchema,
  factorDetailsResponseSchema,
  factorStatusResponseSchema,
  googleEnrollResponseSchema,
  resetBodySchema,
} from 'shared-auth/contract';
import { z } from 'zod';
import { callerOf } from '../../../auth/caller.js';
import type { FactorType } from '../../../factors/store.js';
import { sendJsonText } from '../../../http/json-text.js';
import { actorOf, refuseFederated, sessionIdOf } from '../../../factors/http.js';

const subParams = z.object({ sub: z.string().min(1).max(100) });
// opt-in and opt-out carry no payload in the spec; an empty JSON object is accepted too.
const noBody = z.object({}).nullish();

/**
 * The calls of one factor: /api/multifactor/{googleauth|email}/:sub/{enroll,details,activate,opt-in,opt-out,reset}.
 * Every call needs a valid step-up grant of this session once the user has an active factor.
 */
function factorRoutes(type: FactorType) {
  return async function routes(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.addHook('preHandler', async (request, reply) => {
      const caller = callerOf(request);
      refuseFederated(caller.user);
      app.factors.requireStepUp(caller.user.id, sessionIdOf(caller));
      reply.header('Cache-Control', 'no-store');
    });

    app.post('/:sub/enroll', { schema: { params: subParams, body: noBody } }, async (request, reply) => {
      const actor = actorOf(app, request);
      const { user } = actor;
      if (type === 'google-auth') {
        const enrolment = app.factors.enrollGoogle(actor);
        request.log.info({ userId: user.id }, 'authenticator enrolment started');
        return sendJsonText(reply, googleEnrollResponseSchema, enrolment);
      }
      const status = await app.factors.enrollEmail(actor);
      request.log.info({ userId: user.id }, 'email enrolment code sent');
      return sendJsonText(reply, emailEnrollResponseSchema, { status });
    });

    app.get('/:sub/details', { schema: { params: subParams } }, async (request, reply) => {
      const { user } = callerOf(request);
      return sendJsonText(reply, factorDetailsResponseSchema, app.factors.details(user.id, type));
    });

    app.post(
      '/:sub/activate',
      { schema: { params: subParams, body: activateBodySchema } },
      async (request, reply) => {
        const actor = actorOf(app, request);
        const result = app.factors.activate(actor, type, request.body.code);
        request.log.info({ userId: actor.user.id, factor: type }, '2-step factor activated');
        return sendJsonText(reply, factorStatusResponseSchema, result);
      },
    );

    app.put('/:sub/opt-in', { schema: { params: subParams, body: noBody } }, async (request, reply) => {
      const actor = actorOf(app, request);
      const { user } = actor;
      const result = app.factors.optIn(actor, type);
      request.log.info({ userId: user.id, factor: type }, '2-step factor turned on');
      return sendJsonText(reply, factorStatusResponseSchema, result);
    });

    app.delete('/:sub/opt-out', { schema: { params: subParams, body: noBody } }, async (request, reply) => {
      const actor = actorOf(app, request);
      const { user } = actor;
      const result = app.factors.optOut(actor, type);
      request.log.info({ userId: user.id, factor: type }, '2-step factor turned off');
      return sendJsonText(reply, factorStatusResponseSchema, result);
    });

    app.delete(
      '/:sub/reset',
      { schema: { params: subParams, body: resetBodySchema } },
      async (request, reply) => {
        const actor = actorOf(app, request);
        const { user } = actor;
        const result = app.factors.reset(actor, type);
        request.log.info({ userId: user.id, factor: type }, '2-step factor removed');
        return sendJsonText(reply, factorStatusResponseSchema, result);
      },
    );
  };
}

/** Google Authenticator at /googleauth, email codes at /email. */
export default async function multifactorRoutes(app: FastifyInstance) {
  await app.register(factorRoutes('google-auth'), { prefix: '/googleauth' });
  await app.register(factorRoutes('email'), { prefix: '/email' });
}
