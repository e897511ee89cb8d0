import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { localVerifier, oktaVerifier } from '../auth/verifier.js';
import { loadSigningKeys } from '../oidc/keys.js';

/**
 * How access tokens are checked. Embedded mode: against the provider's own signing key, loaded here from
 * DATA_DIR (the provider plugin signs with the same key). Okta mode: against the org's JWKS over HTTPS.
 */
export default fp(
  async function tokenVerificationPlugin(app: FastifyInstance) {
    const { config } = app;
    if (config.embedded) {
      const keys = await loadSigningKeys(config.DATA_DIR);
      app.decorate('signingKeys', keys);
      app.decorate('tokenVerifier', localVerifier(keys.publicJwks, config.issuer, config.API_AUDIENCE));
    } else {
      app.decorate('signingKeys', null);
      app.decorate('tokenVerifier', oktaVerifier(config.issuer, config.API_AUDIENCE));
    }
    app.decorateRequest('caller', null);
  },
  { name: 'token-verification' },
);
