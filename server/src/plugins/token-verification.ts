import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { orgSessions, providerSessions } from '../auth/sessions.js';
import { localVerifier, oktaVerifier, type TokenPolicy } from '../auth/verifier.js';
import { loadSigningKeys } from '../oidc/keys.js';

/**
 * How access tokens are checked. Embedded mode: against the provider's own signing key, loaded here from
 * DATA_DIR (the provider plugin signs with the same key), and on every call against the provider's store: the
 * token's session and grant must still exist. Okta mode: against the org's JWKS over HTTPS.
 */
export default fp(
  async function tokenVerificationPlugin(app: FastifyInstance) {
    const { config } = app;
    // Tokens of the portal's own client (and of the clients an operator allowed), with the scope the API needs:
    // another application of the same authorization server gets tokens with the same audience.
    const policy: TokenPolicy = {
      clientIds: [config.settings.ClientId, ...config.API_CLIENT_IDS],
      requiredScope: config.API_REQUIRED_SCOPE,
    };
    if (config.embedded) {
      const keys = await loadSigningKeys(config.DATA_DIR);
      // The provider's store ends a session's step-up grants with it, in the same transaction (storage/sqlite.ts).
      const store = app.storage.provider;
      const sessions = providerSessions(app.storage);
      app.decorate('signingKeys', keys);
      app.decorate('oidcStore', store);
      app.decorate('accountSessions', sessions);
      app.decorate(
        'tokenVerifier',
        localVerifier(keys.publicJwks, config.issuer, config.API_AUDIENCE, {
          ...policy,
          isAlive: (token) => sessions.isAlive(token),
        }),
      );
    } else {
      app.decorate('signingKeys', null);
      app.decorate('oidcStore', null);
      app.decorate('accountSessions', orgSessions(app.storage));
      app.decorate('tokenVerifier', oktaVerifier(config.issuer, config.API_AUDIENCE, policy));
    }
    app.decorateRequest('caller', null);
  },
  { name: 'token-verification', dependencies: ['storage'] },
);
