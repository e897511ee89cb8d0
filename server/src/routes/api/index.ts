import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_ERRORS } from 'shared-auth/contract';
import { DuplicateEmailError } from '../../directory/directory.js';
import { InvalidTokenError } from '../../auth/verifier.js';
import { refusal, unauthorized } from '../../http/errors.js';
import { oktaSessionsRoutes } from '../../oidc/okta-compat.js';
import { passwordDepsOf } from '../../password/change-password.js';
import passwordRoutes from './password/index.js';
import multifactorRoutes from './multifactor/index.js';
import profileRoutes from './profile/index.js';
import settingsRoutes from './settings/index.js';
import stepUpRoutes from './stepup/index.js';

/**
 * Who is calling. Okta mode: a user the directory does not know yet is created from the token's claims on
 * their first call (Okta is then the source of the account; this store keeps the profile fields).
 */
async function resolveCaller(app: FastifyInstance, request: FastifyRequest, token: string) {
  const { userId, claims } = await app.tokenVerifier.verify(token);
  let user = app.directory.findById(userId);
  if (!user && !app.config.embedded) {
    const text = (name: string) => (typeof claims[name] === 'string' ? (claims[name] as string) : '');
    const email = text('email') || (claims.sub?.includes('@') ? claims.sub : '');
    if (!email) {
      throw refusal(
        API_ERRORS.tokenWithoutEmail,
        'The access token carries no email to create the account with',
      );
    }
    try {
      user = await app.directory.createUser({
        id: userId,
        email,
        givenName: text('given_name'),
        familyName: text('family_name'),
        country: /^[A-Za-z]{2}$/.test(text('country')) ? text('country') : '',
        isFederated: claims.isFederated === true,
      });
      request.log.info({ userId }, 'user created from an Okta access token');
    } catch (error) {
      if (error instanceof DuplicateEmailError) {
        throw refusal(API_ERRORS.emailInUse, 'Another account already uses this email');
      }
      throw error;
    }
  }
  // Embedded mode: a valid token for a user who is no longer in the directory.
  if (!user) throw unauthorized('The signed-in user no longer exists', true);
  return { user, claims };
}

/** Everything under /api. One onRequest hook authenticates every route that is not marked `public`. */
export default async function apiRoutes(app: FastifyInstance) {
  app.addHook('onRequest', app.rateLimit({ max: app.config.API_RATE_LIMIT, timeWindow: '1 minute' }));

  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.public === true) return;
    // Unknown /api paths get their 404 from the not-found handler, not a 401.
    if (request.routeOptions.url === undefined) return;
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    const token = match?.[1];
    if (!token) throw unauthorized('Sign in to use this API (no bearer access token was sent)', false);
    try {
      request.caller = await resolveCaller(app, request, token);
    } catch (error) {
      if (error instanceof InvalidTokenError) throw unauthorized(error.message, true);
      throw error;
    }
    // Every /api/{area}/{sub}/... call acts on the caller's own data only.
    const { sub } = request.params as { sub?: string };
    if (sub !== undefined && sub !== request.caller.user.id) {
      throw refusal(API_ERRORS.forbiddenSub, 'You can only access your own account');
    }
  });

  // The routes are the contract's calls (apiCalls); each plugin scopes its own hooks.
  await app.register(settingsRoutes);
  await app.register(profileRoutes);
  // One set for the password change and "Confirm it's you": one throttle of wrong passwords.
  const passwordDeps = passwordDepsOf(app);
  await app.register(passwordRoutes, { passwordDeps });
  await app.register(stepUpRoutes, { passwordDeps });
  await app.register(multifactorRoutes);
  // Not a call of the portal: Okta's session endpoint that okta-auth-js asks at sign-out (see okta-compat.ts).
  await app.register(oktaSessionsRoutes);
}
