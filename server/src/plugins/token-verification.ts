import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { orgSessions, providerSessions } from '../auth/sessions.js';
import { localVerifier, oktaVerifier, type TokenPolicy } from '../auth/verifier.js';
import { openProviderKeyRing, type ProviderKeyRingDeps } from '../oidc/provider-keys.js';

/** buildApp's options for this plugin: tests hand the key ring pre-generated keys (BuildOptions). */
export interface TokenVerificationOptions {
  generateSigningKey?: ProviderKeyRingDeps['generateSigningKey'];
}

/**
 * How access tokens are checked. Embedded mode: against the keys the key ring publishes (src/keys: shared by
 * every instance through the database, opened here; the provider plugin signs with its current key), and on
 * every call against the provider's store: the token's session and grant must still exist. Okta mode: against
 * the org's JWKS over HTTPS, and the caller's user is the identity backend's (its per-call read); a token issued
 * before the account's last password or 2-step change is refused (auth/token-not-before.ts).
 */
export default fp(
  async function tokenVerificationPlugin(app: FastifyInstance, options: TokenVerificationOptions) {
    const { config } = app;
    // Tokens of the portal's own client (and of the clients an operator allowed), with the scope the API needs:
    // another application of the same authorization server gets tokens with the same audience.
    const policy: TokenPolicy = {
      clientIds: [config.settings.ClientId, ...config.API_CLIENT_IDS],
      requiredScope: config.API_REQUIRED_SCOPE,
    };
    if (config.embedded) {
      const ring = await openProviderKeyRing({
        config,
        database: app.database,
        sealing: app.atRestSealing,
        now: app.now,
        log: app.log,
        ...(options.generateSigningKey ? { generateSigningKey: options.generateSigningKey } : {}),
      });
      app.addHook('onClose', () => ring.close());
      // The provider's store ends a session's step-up grants with it, in the same transaction (storage/provider.ts).
      const store = app.storage.provider;
      const sessions = providerSessions(app.storage);
      app.decorate('keyRing', ring);
      app.decorate('signingKeys', { getter: () => ring.signing });
      app.decorate('oidcStore', store);
      app.decorate('accountSessions', sessions);
      app.decorate(
        'tokenVerifier',
        localVerifier(() => ring.signing.publicJwks, config.issuer, config.API_AUDIENCE, {
          ...policy,
          isAlive: (token) => sessions.isAlive(token),
        }),
      );
    } else {
      app.decorate('keyRing', null);
      app.decorate('signingKeys', null);
      app.decorate('oidcStore', null);
      // The account's "not before" (after a password or 2-step change) is in the portal's database.
      // Its refresh tokens are revoked at the org after a change, for every client whose tokens the API takes.
      app.decorate('accountSessions', orgSessions(app.identity, app.storage, app.now, policy.clientIds));
      app.decorate('tokenVerifier', oktaVerifier(config.issuer, config.API_AUDIENCE, policy));
    }
    app.decorateRequest('caller', null);
  },
  { name: 'token-verification', dependencies: ['storage', 'identity'] },
);
