import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { SqliteOidcStore } from '../oidc/adapter.js';
import { interactionRoutes } from '../oidc/interactions/routes.js';
import { loadCookieKeys } from '../oidc/keys.js';
import { normaliseRevokeRequest, providerCors } from '../oidc/okta-compat.js';
import { createProvider, INTERACTION_PATH, OKTA_ROUTES } from '../oidc/provider.js';
import { userinfoRoutes } from '../oidc/userinfo.js';

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;

/**
 * The embedded identity provider (node-oidc-provider), mounted with middie at `/oauth2/default`. Off in Okta
 * mode. Its interaction pages and userinfo are Fastify routes under the same prefix.
 */
export default fp(
  async function oidcPlugin(app: FastifyInstance) {
    const { config, directory, signingKeys } = app;
    if (!config.embedded || !signingKeys) {
      app.log.info(
        { issuer: config.issuer },
        'embedded identity provider off: verifying tokens of the Okta org',
      );
      return;
    }

    const store = new SqliteOidcStore(app.db);
    const provider = createProvider({
      config,
      directory,
      store,
      keys: signingKeys,
      cookieKeys: loadCookieKeys(config.DATA_DIR),
    });
    provider.on('server_error', (_ctx, error) => app.log.error({ err: error }, 'identity provider error'));

    store.deleteExpired();
    const cleanup = setInterval(() => {
      const removed = store.deleteExpired();
      if (removed > 0) app.log.debug({ removed }, 'expired provider records deleted');
    }, CLEANUP_INTERVAL_MS);
    cleanup.unref();
    app.addHook('onClose', async () => clearInterval(cleanup));

    const handle = provider.callback();
    const cors = providerCors(config.allowedOrigins);
    // Paths under the mount that are Fastify routes, not the provider's.
    const ownRoutes = (url: string) =>
      url.startsWith(`${INTERACTION_PATH}/`) || url.split('?')[0] === OKTA_ROUTES.userinfo;

    app.use(
      config.oidcMountPath,
      (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
        cors(req, res, (error) => {
          if (error || res.writableEnded) return next(error);
          // middie strips the mount path from req.url.
          const url = req.url ?? '/';
          if (ownRoutes(url)) return next();
          const isRevoke = req.method === 'POST' && url.split('?')[0] === OKTA_ROUTES.revocation;
          (isRevoke ? normaliseRevokeRequest(req) : Promise.resolve(req)).then(
            (request) => handle(request, res),
            (failure: unknown) => next(failure),
          );
        });
      },
    );

    await app.register(interactionRoutes, { config, provider, directory, factors: app.factors });
    await app.register(userinfoRoutes, { config, directory, verifier: app.tokenVerifier });
    app.log.info({ issuer: config.issuer }, 'embedded identity provider on');
  },
  { name: 'oidc', dependencies: ['directory', 'token-verification', 'factors'] },
);
