import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { resolveCaller } from '../../auth/caller.js';
import type { Caller } from '../types.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Who is calling with this bearer token: its verified claims and the directory's user (in Okta mode created
     * on the first call). Throws InvalidTokenError for a token that is not accepted, HttpError otherwise.
     */
    resolveCaller(request: FastifyRequest, token: string): Promise<Caller>;
  }
}

/**
 * Auth: the caller of an /api request and the provisioning of Okta users. Provides `app.resolveCaller`. The
 * onRequest hook that calls it is registered with the routes. Depends on: directory, token-verification.
 */
export default fp(
  async function authPlugin(app: FastifyInstance) {
    const { tokenVerifier, directory, config, accountSessions } = app;
    const deps = {
      verifier: tokenVerifier,
      directory,
      sessions: accountSessions,
      provisionUsers: !config.embedded,
    };
    app.decorate('resolveCaller', (request: FastifyRequest, token: string) =>
      resolveCaller(deps, token, request.log),
    );
  },
  { name: 'auth', dependencies: ['directory', 'token-verification'] },
);
