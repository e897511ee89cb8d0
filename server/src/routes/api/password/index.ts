import type { FastifyInstance } from 'fastify';
import { apiCalls, PASSWORD_CHANGE_GENERIC_ERROR } from 'shared-auth/contract';
import { isStorageUnavailableError } from '../../../db/errors.js';
import { actorOf } from '../../../factors/http.js';
import { HttpError } from '../../../http/errors.js';
import { registerCall } from '../../../http/register-call.js';
import { PasswordChangeRefusal } from '../../../password/change-password.js';
import { serverTiming } from '../../../password/server-timing.js';

/** PUT /api/password/:sub/change (spec section 7). The /api hook has already checked the token and the sub. */
export default async function passwordRoutes(app: FastifyInstance) {
  registerCall(app, apiCalls.passwordChange, async (request, reply) => {
    const actor = await actorOf(app, request);
    const { user } = actor;
    try {
      const outcome = await app.passwords.change(actor, request.body);
      request.log.info(
        {
          userId: user.id,
          verifyMs: outcome.verifyMs === undefined ? undefined : Math.round(outcome.verifyMs),
          hashMs: outcome.hashMs === undefined ? undefined : Math.round(outcome.hashMs),
          revoked: outcome.revoked,
        },
        'password changed',
      );
      // Only a backend that hashes here (embedded: argon2) has a cost to show.
      if (outcome.verifyMs !== undefined) {
        reply.header('Server-Timing', serverTiming(outcome.verifyMs, outcome.hashMs));
      }
      return { status: 'changed' as const };
    } catch (error) {
      if (error instanceof PasswordChangeRefusal) {
        request.log.info(
          { userId: user.id, statusCode: error.statusCode, verifyMs: error.verifyMs },
          'password change refused',
        );
        if (error.verifyMs !== undefined) reply.header('Server-Timing', serverTiming(error.verifyMs));
        throw error;
      }
      // Refusals (step-up, throttle) and storage that cannot take the attempt (503, fail closed) keep their
      // own answers.
      if (error instanceof HttpError || isStorageUnavailableError(error)) throw error;
      // Everything not foreseen above: the one text the page turns into its Error view.
      request.log.error({ err: error, userId: user.id }, 'password change failed');
      throw new HttpError(500, PASSWORD_CHANGE_GENERIC_ERROR);
    }
  });
}
