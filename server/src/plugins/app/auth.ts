import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { resolveCaller, type Caller } from '../../auth/caller.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Who is calling with this bearer token: its verified claims and the identity backend's user. Throws
     * InvalidTokenError for a token that is not accepted, HttpError otherwise (401 for an unknown user).
     */
    resolveCaller(request: FastifyRequest, token: string): Promise<Caller>;
  }
}

/**
 * Auth: the caller of an /api request. Provides `app.resolveCaller`. The onRequest hook that calls it is
 * registered with the routes. Depends on: token-verification (the verifier, and the sessions that answer the
 * token's user: embedded, in the same statement as its session check; Okta, the backend's per-call read).
 */
export default fp(
  async function authPlugin(app: FastifyInstance) {
    const deps = { verifier: app.tokenVerifier, sessions: app.accountSessions };
    app.decorate('resolveCaller', (_request: FastifyRequest, token: string) => resolveCaller(deps, token));
  },
  { name: 'auth', dependencies: ['token-verification'] },
);
