import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_ERRORS } from 'shared-auth/contract';
import { callerOf } from '../auth/caller.js';
import type { User } from '../directory/directory.js';
import { refusal } from '../http/errors.js';
import type { Caller } from '../plugins/types.js';
import { sessionGrantKey } from './grants.js';
import type { Actor } from './service.js';

/** Federated users' security belongs to their home identity provider (spec section 6). */
export function refuseFederated(user: User): void {
  if (user.isFederated) {
    throw refusal(API_ERRORS.federatedUser, 'Security settings are not available for federated users');
  }
}

/**
 * The sign-in session a step-up grant belongs to: the access token's `sid` (the provider session, the same
 * across token renewals). Another browser has another session, so it must verify on its own. Tokens without
 * a `sid` (some Okta setups) fall back to the token's own id: the grant then lasts until the token is renewed.
 */
export function sessionIdOf(caller: Caller): string {
  const { sid, jti } = caller.claims;
  if (typeof sid === 'string' && sid !== '') return sessionGrantKey(sid);
  if (typeof jti === 'string' && jti !== '') return `jti:${jti}`;
  return `sub:${caller.user.id}:${String(caller.claims.iat ?? '')}`;
}

/** Who is making a change, from which session and browser: what the factor and password rules need. */
export async function actorOf(app: FastifyInstance, request: FastifyRequest): Promise<Actor> {
  const caller = callerOf(request);
  const { sid } = caller.claims;
  return {
    user: caller.user,
    grantKey: sessionIdOf(caller),
    sessionUid: typeof sid === 'string' && sid !== '' ? sid : undefined,
    signedInAt: await app.accountSessions.signedInAt({ userId: caller.user.id, claims: caller.claims }),
    userAgent: request.headers['user-agent'],
  };
}
