import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  challengeResponseSchema,
  reauthenticateBodySchema,
  sendChallengeResponseSchema,
  stepUpChallengeFactorSchema,
  stepUpVerifyBodySchema,
  stepUpVerifyFactorSchema,
  stepUpVerifyResponseSchema,
} from 'shared-auth/contract';
import { z } from 'zod';
import { callerOf } from '../../../auth/caller.js';
import { sendJsonText } from '../../../http/json-text.js';
import { actorOf, refuseFederated, sessionIdOf } from '../../../factors/http.js';
import { reauthenticate } from '../../../password/reauthenticate.js';
import { serverTiming } from '../../../password/server-timing.js';
import { PasswordChangeRefusal, type PasswordChangeDeps } from '../../../password/change-password.js';

const subParams = z.object({ sub: z.string().min(1).max(100) });

/**
 * Step-up verification (spec section 7). The server decides: a challenge is needed when the user has an active
 * factor and this sign-in session has not verified in the last 5 minutes.
 */
export default async function stepUpRoutes(
  fastify: FastifyInstance,
  { passwordDeps }: { passwordDeps: PasswordChangeDeps },
) {
  const app = fastify.withTypeProvider<ZodTypeProvider>();
  app.addHook('preHandler', async (request, reply) => {
    refuseFederated(callerOf(request).user);
    reply.header('Cache-Control', 'no-store');
  });

  app.get('/:sub/challenge', { schema: { params: subParams } }, async (request, reply) => {
    const caller = callerOf(request);
    return sendJsonText(reply, challengeResponseSchema, {
      challengeUser: app.factors.needsStepUp(caller.user.id, sessionIdOf(caller)),
      activeFactorsData: app.factors.activeFactorsData(caller.user),
    });
  });

  app.post(
    '/:sub/:factor/challenge',
    { schema: { params: subParams.extend({ factor: stepUpChallengeFactorSchema }) } },
    async (request, reply) => {
      const { user } = callerOf(request);
      const maskedEmail = await app.factors.sendVerificationEmail(user);
      request.log.info({ userId: user.id }, 'step-up email code sent');
      return sendJsonText(reply, sendChallengeResponseSchema, { status: 'SENT', maskedEmail });
    },
  );

  app.post(
    '/:sub/:factor/verify',
    {
      schema: {
        params: subParams.extend({ factor: stepUpVerifyFactorSchema }),
        body: stepUpVerifyBodySchema,
      },
    },
    async (request, reply) => {
      const actor = actorOf(app, request);
      const { factor } = request.params;
      const expiresAt = app.factors.stepUp(actor, factor, request.body.passCode);
      request.log.info({ userId: actor.user.id, factor }, 'step-up verified');
      return sendJsonText(reply, stepUpVerifyResponseSchema, {
        status: 'VERIFIED',
        expiresAt: new Date(expiresAt).toISOString(),
      });
    },
  );

  // "Confirm it's you": the password again before the first factor (FactorService.requireFreshProof).
  app.post(
    '/:sub/reauthenticate',
    { schema: { params: subParams, body: reauthenticateBodySchema } },
    async (request, reply) => {
      const actor = actorOf(app, request);
      let confirmed;
      try {
        confirmed = await reauthenticate(passwordDeps, actor, request.body.password);
      } catch (error) {
        // A wrong password reached argon2 too: its cost shows, as on the password change.
        if (error instanceof PasswordChangeRefusal && error.verifyMs !== undefined) {
          reply.header('Server-Timing', serverTiming(error.verifyMs));
        }
        throw error;
      }
      const { expiresAt, verifyMs } = confirmed;
      request.log.info({ userId: actor.user.id }, 'password confirmed for a first 2-step factor');
      reply.header('Server-Timing', serverTiming(verifyMs));
      return sendJsonText(reply, stepUpVerifyResponseSchema, {
        status: 'VERIFIED',
        expiresAt: new Date(expiresAt).toISOString(),
      });
    },
  );
}
