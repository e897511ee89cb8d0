import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { withWritesAlongside } from '../../oidc/adapter.js';
import { answerStorageErrorsWith503, providerEdge } from '../../oidc/edge.js';
import { SqlActivityEventStore } from '../../storage/activity-events.js';
import { supportLinkOf } from '../../config/support-link.js';
import { normaliseEmail } from '../../directory/directory.js';
import { CodeAttempts } from '../../factors/code-attempts.js';
import { RESET_PATH } from '../../oidc/interactions/reset-flow.js';
import { challengeBinding } from '../../passkeys/challenges.js';
import { resetRoutes } from '../../oidc/interactions/reset-routes.js';
import { interactionRoutes } from '../../oidc/interactions/routes.js';
import { SignInKeys } from '../../oidc/interactions/secrets.js';
import { emailKey } from '../../oidc/interactions/steps.js';
import { PasswordReset } from '../../password/reset.js';
import { providerCors, readRevokeRequest, RevokeRequestError } from '../../oidc/okta-compat.js';
import { accessTokenRevoker } from '../../oidc/revocation.js';
import { createProvider, INTERACTION_PATH, OKTA_ROUTES } from '../../oidc/provider.js';
import { providerHolder } from '../../oidc/provider-holder.js';
import { userinfoRoutes } from '../../oidc/userinfo.js';
import { REQUEST_WINDOW_MS } from '../../throttles/request-windows.js';

const CLEANUP_INTERVAL_MS = 10 * 60 * 1000;

declare module 'fastify' {
  interface FastifyInstance {
    /** "Forgot password" (embedded mode only; undefined in Okta mode): its rules, and `idle()` for the work after answers. */
    passwordResets?: PasswordReset;
  }
}

/**
 * Provider: the embedded identity provider (node-oidc-provider), mounted with middie at `/oauth2/default`, with
 * its sign-in pages, its "Forgot password" pages (password/reset.ts behind oidc/interactions/reset-routes.ts) and
 * userinfo as Fastify routes under the same prefix; deletes expired provider records and reset links every 10
 * minutes and ended per-address request windows every minute. Off in Okta mode. Provides `app.passwordResets`
 * (embedded mode only).
 * Depends on: storage (the sign-in throttle, the per-address counts),
 * directory, token-verification (the key ring, the provider store, the verifier), factors (the sign-in's
 * second step), notifications (lock notices), devices (the Devices row of each signed-in session).
 */
export default fp(
  async function oidcPlugin(app: FastifyInstance) {
    const { config, directory, keyRing, oidcStore: store } = app;
    if (!config.embedded || !keyRing || !store) {
      app.log.info(
        { issuer: config.issuer },
        'embedded identity provider off: verifying tokens of the Okta org',
      );
      return;
    }

    // Built again at every change of the key ring (oidc-provider reads its keys once): requests reach the
    // current one.
    const provider = providerHolder(() => {
      const built = createProvider({
        config,
        directory,
        store,
        keys: keyRing.signing,
        cookieKeys: [...keyRing.cookieKeys],
      });
      built.on('server_error', (_ctx, error) => app.log.error({ err: error }, 'identity provider error'));
      answerStorageErrorsWith503(built);
      return built;
    }, keyRing);
    app.addHook('onClose', async () => provider.close());

    const deleteExpired = () =>
      store.deleteExpired().then(
        (removed) => {
          if (removed > 0) app.log.debug({ removed }, 'expired provider records deleted');
        },
        (error: unknown) => app.log.warn({ err: error }, 'expired provider records not deleted'),
      );
    await deleteExpired();
    const cleanup = setInterval(() => void deleteExpired(), CLEANUP_INTERVAL_MS);
    cleanup.unref();
    app.addHook('onClose', async () => clearInterval(cleanup));

    const { handle: handleRequest } = provider;
    // A sign-out (/v1/logout and its confirmation) deletes the session: the account's activity records it in the
    // same transaction (the adapter runs the write with the deletion).
    const handle = (req: IncomingMessage, res: ServerResponse) => {
      const path = (req.url ?? '/').split('?')[0] ?? '';
      // middie copies Fastify's request.ip (TRUST_PROXY applied) onto the raw request.
      const origin = {
        userAgent: req.headers['user-agent'],
        ip: (req as IncomingMessage & { ip?: string }).ip,
      };
      // The sign-in's resume (/v1/authorize/:uid) saves the session with its account: the Devices list's row of
      // it is written in that save's transaction (described here, before it).
      if (path.startsWith(`${OKTA_ROUTES.authorization}/`)) {
        const sessionSaved = app.devices.signedIn(origin);
        return sessionSaved
          ? withWritesAlongside({ sessionSaved }, () => handleRequest(req, res))
          : handleRequest(req, res);
      }
      if (path !== OKTA_ROUTES.end_session && !path.startsWith(`${OKTA_ROUTES.end_session}/`)) {
        return handleRequest(req, res);
      }
      // Described before the provider's transaction (no parsing under the write lock); the account is the session's.
      const described = app.activity.prepare({ userId: '', kind: 'signed-out' }, origin);
      if (!described) return handleRequest(req, res);
      return withWritesAlongside(
        {
          sessionEnded: async (tx, accountId) => {
            await new SqlActivityEventStore(tx).append({ ...described, userId: accountId });
          },
        },
        () => handleRequest(req, res),
      );
    };
    // /v1/revoke: the form is read once here; an access token (a JWT the provider does not store) is recorded
    // as revoked, then the provider handles the request as usual (a refresh token ends its whole grant).
    const revokeAccessToken = accessTokenRevoker(() => keyRing.signing.publicJwks, config.issuer, store);
    const revoke = async (req: IncomingMessage) => {
      const { request, form } = await readRevokeRequest(req);
      if (await revokeAccessToken(form)) app.log.info('access token revoked');
      return request;
    };
    const cors = providerCors(config.allowedOrigins);
    // Paths under the mount that are Fastify routes, not the provider's.
    const ownRoutes = (url: string) => {
      const path = url.split('?')[0] ?? '';
      return (
        url.startsWith(`${INTERACTION_PATH}/`) ||
        path === OKTA_ROUTES.userinfo ||
        path === RESET_PATH ||
        path.startsWith(`${RESET_PATH}/`)
      );
    };

    // First (src/oidc/edge.ts): exact paths only (404 otherwise), the host pinned to PUBLIC_URL, per-client
    // limits, bounds on stored interactions, state/nonce caps, 413 on oversized bodies.
    const windows = app.storage.requestWindows;
    const liveInteractions = () => store.countLiveInteractions();
    app.use(
      config.oidcMountPath,
      providerEdge(config, { now: app.now, windows, liveInteractions, log: app.log }),
    );
    // The per-address counts (the edge's and the sign-in form's) of windows that ended, once a window.
    const pruneWindows = setInterval(() => {
      windows
        .prune(app.now())
        .catch((error: unknown) => app.log.warn({ err: error }, 'request windows not pruned'));
    }, REQUEST_WINDOW_MS);
    pruneWindows.unref();
    app.addHook('onClose', async () => clearInterval(pruneWindows));
    app.use(
      config.oidcMountPath,
      (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => {
        cors(req, res, (error) => {
          if (error || res.writableEnded) return next(error);
          // middie strips the mount path from req.url.
          const url = req.url ?? '/';
          if (ownRoutes(url)) return next();
          const isRevoke = req.method === 'POST' && url.split('?')[0] === OKTA_ROUTES.revocation;
          if (!isRevoke) return void handle(req, res);
          revoke(req).then(
            (request) => handle(request, res),
            (failure: unknown) => {
              if (!(failure instanceof RevokeRequestError)) return next(failure);
              res.statusCode = failure.statusCode;
              res.setHeader('Content-Type', 'application/json; charset=utf-8');
              res.setHeader('Cache-Control', 'no-store');
              res.end(JSON.stringify({ error: failure.error, error_description: failure.description }));
            },
          );
        });
      },
    );

    await app.register(interactionRoutes, {
      config,
      provider,
      cookieKeys: () => keyRing.cookieKeys,
      directory,
      factors: app.stepUp,
      signInEvents: app.storage.throttles.signIn,
      requestWindows: windows,
    });
    // "Forgot password" (issue 20): the reset's rules (password/reset.ts) behind the reset pages.
    const keys = new SignInKeys(() => keyRing.cookieKeys);
    const throttleKeyOf = (email: string) =>
      emailKey(normaliseEmail(email), (v) => keys.sign('throttle-key', v));
    const resets = new PasswordReset({
      storage: app.storage,
      directory,
      stepUp: app.stepUp,
      attempts: new CodeAttempts({
        storage: app.storage,
        notifier: app.notifier,
        now: app.now,
        log: app.log,
      }),
      sessions: app.accountSessions,
      mail: app.notifier,
      requestKey: throttleKeyOf,
      signInThrottleKey: throttleKeyOf,
      linkFor: (token) => `${config.PUBLIC_URL}${config.oidcMountPath}${RESET_PATH}/link?token=${token}`,
      now: app.now,
      log: app.log,
      activity: app.activity,
      // The reset counts each attempt under the wrong-code throttle itself (checkCode): the use does not count it again.
      recoveryCodes: {
        use: (userId, typed, origin) =>
          app.useRecoveryCode(userId, typed, {
            use: 'password-reset',
            counted: false,
            userAgent: origin?.userAgent,
            ip: origin?.ip,
          }),
        left: (userId) => app.recoveryCodes.left(userId),
      },
      // A passkey-holder's reset: the challenge bound to the link, checked as a sign-in's second step is.
      passkeys: app.passkeys.available
        ? {
            usable: (userId) => app.storage.passkeys.countUsable(userId),
            options: (user, linkKey) =>
              app.passkeys.authenticationOptions(user, challengeBinding('reset-link', linkKey)),
            verify: async (answer, linkKey, user, userAgent) => {
              await app.passkeys.signInVerify(
                answer,
                challengeBinding('reset-link', linkKey),
                user,
                userAgent,
              );
            },
          }
        : undefined,
    });
    app.decorate('passwordResets', resets);
    const pruneResets = setInterval(() => {
      resets.prune().catch((error: unknown) => app.log.warn({ err: error }, 'password resets not pruned'));
    }, CLEANUP_INTERVAL_MS);
    pruneResets.unref();
    app.addHook('onClose', async () => {
      clearInterval(pruneResets);
      await resets.idle();
    });
    await app.register(resetRoutes, {
      config,
      resets,
      keys,
      requestWindows: windows,
      support: supportLinkOf(config.settings.FooterLinks),
      passkeys: app.passkeys.available,
    });
    await app.register(userinfoRoutes, { config, directory, verifier: app.tokenVerifier });
    app.log.info({ issuer: config.issuer }, 'embedded identity provider on');
  },
  {
    name: 'provider',
    dependencies: [
      'storage',
      'directory',
      'token-verification',
      'factors',
      'notifications',
      'activity',
      'passkeys',
      'devices',
    ],
  },
);
