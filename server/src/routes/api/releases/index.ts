import type { FastifyInstance, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { releaseCalls, type ApiCall } from 'shared-auth/contract';
import type { CallHandler } from '../../../http/register-call.js';
import type { DeployKey } from '../../../storage/deploy-keys.js';

/** The key the hook below authorized for this request. */
const keysOf = new WeakMap<FastifyRequest, DeployKey>();

function keyOf(request: FastifyRequest): DeployKey {
  const key = keysOf.get(request);
  if (!key) throw new Error(`${request.method} ${request.url} ran without the deploy key hook`);
  return key;
}

/**
 * Registers a release call from its declaration (params, body and answer validated by the contract's schemas) with
 * a plain JSON answer: the release API is for tools (`pnpm release`, a CI job), not the spec's JSON-text calls.
 */
export function registerPlainCall<C extends ApiCall>(
  app: FastifyInstance,
  call: C,
  handler: CallHandler<C>,
): void {
  app.route({
    method: call.method,
    url: call.path.slice(app.prefix.length),
    schema: {
      ...(call.params ? { params: call.params } : {}),
      ...(call.body ? { body: call.body } : {}),
      response: { 200: call.response, 201: call.response },
    },
    config: { public: true },
    handler: handler as unknown as RouteHandlerMethod,
  });
}

/**
 * The release API (issue 23), called by `pnpm release`: POST /api/v1/releases/:remote/versions (publish, 201),
 * …/canary, …/promote, …/rollback and GET /api/v1/releases/:remote (status). Public for the bearer hook; every call
 * is authorized here, in one onRequest hook, by the remote's deploy key (401 invalid_deploy_key, 403
 * forbidden_remote) before its body is even read. The actor of the audit is the key's label. Answers plain JSON.
 */
export default async function releaseRoutes(app: FastifyInstance) {
  app.addHook('onRequest', async (request, reply) => {
    const { remote = '' } = request.params as { remote?: string };
    keysOf.set(request, await app.deployKeys.authorize(request.headers.authorization, remote));
    reply.header('Cache-Control', 'no-store');
  });

  registerPlainCall(app, releaseCalls.publish, async (request, reply) => {
    const { remote } = request.params;
    const key = keyOf(request);
    const status = await app.releases.publish(remote, request.body, key.label);
    request.log.info({ remote, version: request.body.version, by: key.label }, 'release published');
    reply.code(201);
    return status;
  });

  registerPlainCall(app, releaseCalls.canary, async (request) => {
    const { remote } = request.params;
    const key = keyOf(request);
    const status = await app.releases.canary(remote, request.body, key.label);
    request.log.info({ remote, ...request.body, by: key.label }, 'release in canary');
    return status;
  });

  registerPlainCall(app, releaseCalls.promote, async (request) => {
    const { remote } = request.params;
    const key = keyOf(request);
    const status = await app.releases.promote(remote, request.body, key.label);
    request.log.info({ remote, version: request.body.version, by: key.label }, 'release promoted');
    return status;
  });

  registerPlainCall(app, releaseCalls.rollback, async (request) => {
    const { remote } = request.params;
    const key = keyOf(request);
    const status = await app.releases.rollback(remote, key.label);
    request.log.info({ remote, by: key.label }, 'release rolled back');
    return status;
  });

  registerPlainCall(app, releaseCalls.status, async (request) => app.releases.status(request.params.remote));
}
