import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_ERRORS } from 'shared-auth/contract';
import { InvalidTokenError } from '../../auth/verifier.js';
import { refusal, unauthorized } from '../../http/errors.js';
import { oktaSessionsRoutes } from '../../oidc/okta-compat.js';
import activityRoutes from './activity/index.js';
import passwordRoutes from './password/index.js';
import multifactorRoutes from './multifactor/index.js';
import notMeRoutes from './not-me/index.js';
import passkeysRoutes from './passkeys/index.js';
import profileRoutes from './profile/index.js';
import recoveryCodesRoutes from './recoverycodes/index.js';
import releaseRoutes from './releases/index.js';
import remoteLoadRoutes from './remote-loads/index.js';
import sessionsRoutes from './sessions/index.js';
import settingsRoutes from './settings/index.js';
import stepUpRoutes from './stepup/index.js';

/**
 * Everything under /api. One onRequest hook authenticates every route that is not marked `public`: it is attached
 * to each such route as it is registered, so a request pays for no check of which kind of route it is, and an
 * unknown /api path gets its 404 from the not-found handler, not a 401.
 */
export default async function apiRoutes(app: FastifyInstance) {
  // The flood guard counts per instance, on purpose: a count shared in the database would add a write to every API
  // read, the very load it guards against. With N instances an address gets up to N times API_RATE_LIMIT; a
  // cluster-wide flood limit belongs at the load balancer. (The per-address limits that guard something stored or
  // guessable are shared: throttles/request-windows.ts.)
  app.addHook('onRequest', app.rateLimit({ max: app.config.API_RATE_LIMIT, timeWindow: '1 minute' }));

  async function authenticate(request: FastifyRequest): Promise<void> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const token = match?.[1];
    if (!token) throw unauthorized('Sign in to use this API (no bearer access token was sent)', false);
    try {
      request.caller = await app.resolveCaller(request, token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw unauthorized(error.message, true);
      throw error;
    }
    // Every /api/{area}/{sub}/... call acts on the caller's own data only.
    const { sub } = request.params as { sub?: string };
    if (sub !== undefined && sub !== request.caller.user.id) {
      throw refusal(API_ERRORS.forbiddenSub, 'You can only access your own account');
    }
    // The Devices list's "last active" (Okta mode: the sign-in's row, at its first call): at most one write per
    // session a minute (devices/sessions.ts), never a refusal of the call.
    const { caller } = request;
    await app.devices
      .seen(
        { userId: caller.user.id, claims: caller.claims },
        { userAgent: request.headers['user-agent'], ip: request.ip },
      )
      .catch((error: unknown) => request.log.warn({ err: error }, 'devices: last active not recorded'));
  }

  app.addHook('onRoute', (route) => {
    if (route.config?.public === true) return;
    const own = route.onRequest === undefined ? [] : [route.onRequest].flat();
    route.onRequest = [...own, authenticate];
  });

  // The routes are the contract's calls (apiCalls); each plugin scopes its own hooks.
  await app.register(settingsRoutes);
  await app.register(profileRoutes);
  await app.register(passwordRoutes);
  await app.register(stepUpRoutes);
  await app.register(multifactorRoutes);
  await app.register(recoveryCodesRoutes);
  await app.register(passkeysRoutes);
  await app.register(activityRoutes);
  await app.register(notMeRoutes);
  await app.register(sessionsRoutes);
  // Issue 23: the teams' release API (deploy keys) and the shell's load reports.
  await app.register(releaseRoutes);
  await app.register(remoteLoadRoutes);
  // Not a call of the portal: Okta's session endpoint that okta-auth-js asks at sign-out (see okta-compat.ts).
  await app.register(oktaSessionsRoutes);
}
