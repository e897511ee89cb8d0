import type { FastifyInstance } from 'fastify';
import { apiCalls } from 'shared-auth/contract';
import { callerOf } from '../../../auth/caller.js';
import { actorOf, refuseFederated } from '../../../factors/http.js';
import { registerCall } from '../../../http/register-call.js';

/**
 * Passkeys: /api/passkeys/:sub (the list), …/registration/{options,verify} (adding one, under the factors' set-up
 * guard), …/:id/name (rename) and …/:id (removal, under step-up). The step-up with a passkey is the step-up's
 * (routes/api/stepup). Federated users' security belongs to their home identity provider.
 */
export default async function passkeysRoutes(app: FastifyInstance) {
  app.addHook('preHandler', async (request, reply) => {
    refuseFederated(callerOf(request).user);
    reply.header('Cache-Control', 'no-store');
  });

  registerCall(app, apiCalls.passkeys, async (request) => app.passkeys.list(callerOf(request).user.id));

  registerCall(app, apiCalls.passkeyRegistrationOptions, async (request) =>
    app.passkeys.registrationOptions(await actorOf(app, request)),
  );

  registerCall(app, apiCalls.passkeyRegistrationVerify, async (request) => {
    const actor = await actorOf(app, request);
    const passkey = await app.passkeys.registrationVerify(actor, request.body.response);
    request.log.info({ userId: actor.user.id, passkey: passkey.id }, 'passkey added');
    return passkey;
  });

  registerCall(app, apiCalls.passkeyRename, async (request) =>
    app.passkeys.rename(callerOf(request).user.id, request.params.id, request.body.name),
  );

  registerCall(app, apiCalls.passkeyRemove, async (request) => {
    const actor = await actorOf(app, request);
    // Under step-up (checked first, whichever backend holds the passkeys): PasskeyService.remove.
    const list = await app.passkeys.remove(actor, request.params.id);
    request.log.info({ userId: actor.user.id, passkey: request.params.id }, 'passkey removed');
    return list;
  });
}
