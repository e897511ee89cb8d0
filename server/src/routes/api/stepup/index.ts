import type { FastifyInstance } from 'fastify';
import { apiCalls, FACTOR_OF_STEP_UP_SEGMENT } from 'shared-auth/contract';
import { callerOf, currentUser } from '../../../auth/caller.js';
import { actorOf, refuseFederated, sessionIdOf } from '../../../factors/http.js';
import { registerCall } from '../../../http/register-call.js';
import { PasswordChangeRefusal } from '../../../password/change-password.js';
import { serverTiming } from '../../../password/server-timing.js';

/**
 * Step-up verification (spec section 7). The server decides: a challenge is needed when the user has an active
 * factor and this sign-in session has not verified in the last 5 minutes.
 */
export default async function stepUpRoutes(app: FastifyInstance) {
  app.addHook('preHandler', async (request, reply) => {
    refuseFederated(callerOf(request).user);
    reply.header('Cache-Control', 'no-store');
  });

  // Both show the account's email (masked): read as the identity backend holds it now. The challenge is the
  // step-up's with the passkeys it does not hold itself (Okta's): PasskeyService.challenge.
  registerCall(app, apiCalls.stepUpChallenge, async (request) => {
    const caller = callerOf(request);
    return app.passkeys.challenge(await currentUser(app.identity, caller), sessionIdOf(caller));
  });

  registerCall(app, apiCalls.stepUpSendChallenge, async (request) => {
    const user = await currentUser(app.identity, callerOf(request));
    const maskedEmail = await app.stepUp.sendVerificationEmail(user);
    request.log.info({ userId: user.id }, 'step-up email code sent');
    return { status: 'SENT' as const, maskedEmail };
  });

  registerCall(app, apiCalls.stepUpVerify, async (request) => {
    const actor = await actorOf(app, request);
    const factor = FACTOR_OF_STEP_UP_SEGMENT[request.params.factor];
    const expiresAt = await app.stepUp.stepUp(actor, factor, request.body.passCode);
    request.log.info({ userId: actor.user.id, factor }, 'step-up verified');
    return { status: 'VERIFIED' as const, expiresAt: new Date(expiresAt).toISOString() };
  });

  // A recovery code instead of a factor's code: the same grant, the code used up (issue 20).
  registerCall(app, apiCalls.stepUpVerifyRecoveryCode, async (request) => {
    const actor = await actorOf(app, request);
    const expiresAt = await app.stepUp.stepUpWithRecoveryCode(actor, request.body.recoveryCode);
    request.log.info({ userId: actor.user.id }, 'step-up verified with a recovery code');
    return { status: 'VERIFIED' as const, expiresAt: new Date(expiresAt).toISOString() };
  });

  // A passkey instead of a code (passkeys/): the same grant. Its options carry a challenge bound to this session.
  registerCall(app, apiCalls.stepUpPasskeyOptions, async (request) =>
    app.passkeys.stepUpOptions(await actorOf(app, request)),
  );

  registerCall(app, apiCalls.stepUpVerifyPasskey, async (request) => {
    const actor = await actorOf(app, request);
    const expiresAt = await app.passkeys.stepUpVerify(actor, request.body.response);
    request.log.info({ userId: actor.user.id }, 'step-up verified with a passkey');
    return { status: 'VERIFIED' as const, expiresAt: new Date(expiresAt).toISOString() };
  });

  // "Confirm it's you": the password again before the first factor (StepUpService.requireFreshProof).
  registerCall(app, apiCalls.reauthenticate, async (request, reply) => {
    const actor = await actorOf(app, request);
    let confirmed;
    try {
      confirmed = await app.passwords.reauthenticate(actor, request.body.password);
    } catch (error) {
      // A wrong password reached argon2 too: its cost shows, as on the password change.
      if (error instanceof PasswordChangeRefusal && error.verifyMs !== undefined) {
        reply.header('Server-Timing', serverTiming(error.verifyMs));
      }
      throw error;
    }
    const { expiresAt, verifyMs } = confirmed;
    request.log.info({ userId: actor.user.id }, 'password confirmed for a first 2-step factor');
    if (verifyMs !== undefined) reply.header('Server-Timing', serverTiming(verifyMs));
    return { status: 'VERIFIED' as const, expiresAt: new Date(expiresAt).toISOString() };
  });
}
