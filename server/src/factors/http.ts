import type { User } from '../directory/directory.js';
import { HttpError } from '../http/errors.js';
import type { Caller } from '../plugins/types.js';

/** Federated users' security belongs to their home identity provider (spec section 6). */
export function refuseFederated(user: User): void {
  if (user.isFederated) {
    throw new HttpError(403, 'Security settings are not available for federated users');
  }
}

/**
 * The sign-in session a step-up grant belongs to: the access token's `sid` (the provider session, the same
 * across token renewals). Another browser has another session, so it must verify on its own. Tokens without
 * a `sid` (some Okta setups) fall back to the token's own id: the grant then lasts until the token is renewed.
 */
export function sessionIdOf(caller: Caller): string {
  const { sid, jti } = caller.claims;
  if (typeof sid === 'string' && sid !== '') return `sid:${sid}`;
  if (typeof jti === 'string' && jti !== '') return `jti:${jti}`;
  return `sub:${caller.user.id}:${String(caller.claims.iat ?? '')}`;
}
