import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/index.js';
import type { Directory } from '../directory/directory.js';
import type { TokenVerifier } from '../auth/verifier.js';
import { claimsForScopes } from './claims.js';
import { OKTA_ROUTES } from './provider.js';

export interface UserinfoOptions {
  config: AppConfig;
  directory: Directory;
  verifier: TokenVerifier;
}

/**
 * `/v1/userinfo` for okta-auth-js's getUser(). oidc-provider's own endpoint refuses access tokens issued for
 * a resource (ours all are), so this route verifies the JWT itself against the provider's keys and returns
 * the directory's claims for the scopes the token carries. Errors follow RFC 6750.
 */
export async function userinfoRoutes(app: FastifyInstance, { config, directory, verifier }: UserinfoOptions) {
  const realm = config.issuer;

  function refuse(reply: FastifyReply, description: string, tokenSent: boolean) {
    const challenge = tokenSent
      ? `Bearer realm="${realm}", error="invalid_token", error_description="${description}"`
      : `Bearer realm="${realm}"`;
    return reply
      .code(401)
      .header('WWW-Authenticate', challenge)
      .header('Cache-Control', 'no-store')
      .send({ error: 'invalid_token', error_description: description });
  }

  async function handler(request: FastifyRequest, reply: FastifyReply) {
    const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
    const token = match?.[1];
    if (!token) return refuse(reply, 'no access token provided', false);
    let verified;
    try {
      verified = await verifier.verify(token);
    } catch {
      return refuse(reply, 'invalid token provided', true);
    }
    const user = await directory.findById(verified.userId);
    if (!user) return refuse(reply, 'invalid token provided', true);
    const scopes = typeof verified.claims.scope === 'string' ? verified.claims.scope.split(' ') : [];
    if (!scopes.includes('openid')) {
      return reply
        .code(403)
        .header('WWW-Authenticate', `Bearer realm="${realm}", error="insufficient_scope"`)
        .send({ error: 'insufficient_scope', error_description: 'the access token has no openid scope' });
    }
    return reply.header('Cache-Control', 'no-store').send(claimsForScopes(user, scopes));
  }

  const url = `${config.oidcMountPath}${OKTA_ROUTES.userinfo}`;
  app.get(url, { config: { public: true } }, handler);
  app.post(url, { config: { public: true } }, handler);
}
