import type { FastifyInstance, FastifyRequest } from 'fastify';
import { API_ERRORS } from 'shared-auth/contract';
import { callerOf, type Caller } from '../auth/caller.js';
import type { User } from '../directory/directory.js';
import { refusal } from '../http/errors.js';
import { carriedGrantKey, chainGrantKey, sessionGrantKey } from '../storage/grants.js';
import type { Actor } from './actor.js';

/** Federated users' security belongs to their home identity provider (spec section 6). */
export function refuseFederated(user: User): void {
  if (user.isFederated) {
    throw refusal(API_ERRORS.federatedUser, 'Security settings are not available for federated users');
  }
}

/**
 * Devices & activity (issue 22) are refused to federated users only where the data is the portal's own provider's
 * (embedded mode): in Okta mode the sessions and events are the org's, a federated user of the org's as anyone's.
 */
export function refuseFederatedWhenPortalData(app: FastifyInstance, user: User): void {
  if (app.config.identityBackend === 'embedded') refuseFederated(user);
}

/**
 * The grant chain a step-up grant belongs to: the access token's provider session (`sid`) and grant (`gid`, one
 * authorization and the refresh tokens rotated from it), both the same across token renewals. Another browser,
 * or a copied refresh token's branch in another grant, must verify on its own. Okta tokens have no `gid`: their
 * `sid` alone; tokens without a `sid` either fall back to the token's own id (the grant then lasts until the
 * token is renewed).
 */
export function sessionIdOf(caller: Caller): string {
  const { sid, gid, jti } = caller.claims;
  if (typeof sid === 'string' && sid !== '') {
    return typeof gid === 'string' && gid !== '' ? chainGrantKey(sid, gid) : sessionGrantKey(sid);
  }
  if (typeof jti === 'string' && jti !== '') return `jti:${jti}`;
  return `sub:${caller.user.id}:${String(caller.claims.iat ?? '')}`;
}

/** Who is making a change, from which session and browser: what the factor and password rules need. */
export async function actorOf(app: FastifyInstance, request: FastifyRequest): Promise<Actor> {
  const caller = callerOf(request);
  const { sid, gid } = caller.claims;
  const sessionUid = typeof sid === 'string' && sid !== '' ? sid : undefined;
  return {
    user: caller.user,
    grantKey: sessionIdOf(caller),
    sessionUid,
    // Only a grant chain of the embedded provider (a `gid`) ends with a change and hands its step-up on.
    carryKey: sessionUid && typeof gid === 'string' && gid !== '' ? carriedGrantKey(sessionUid) : undefined,
    tokenId:
      typeof caller.claims.jti === 'string' && caller.claims.jti !== '' ? caller.claims.jti : undefined,
    signedInAt: await app.accountSessions.signedInAt({ userId: caller.user.id, claims: caller.claims }),
    userAgent: request.headers['user-agent'],
    ip: request.ip,
  };
}
