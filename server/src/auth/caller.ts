import type { FastifyRequest } from 'fastify';
import type { User } from '../storage/users.js';
import { unauthorized } from '../http/errors.js';
import type { IdentityBackend } from '../identity/types.js';
import type { AccountSessions } from './sessions.js';
import {
  InvalidTokenError,
  SESSION_ENDED_MESSAGE,
  type AccessTokenClaims,
  type TokenVerifier,
} from './verifier.js';

/** The signed-in caller of an /api request, set by the auth hook (request.caller). */
export interface Caller {
  user: User;
  /** `user` came from Okta mode's short per-instance cache: read it again (currentUser) to show its data. */
  userCached: boolean;
  claims: AccessTokenClaims;
}

/** The caller the /api auth hook attached; a route outside that hook calling this is a programming error. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error(`${request.method} ${request.url} ran without the auth hook`);
  return request.caller;
}

export interface CallerDeps {
  verifier: TokenVerifier;
  sessions: AccountSessions;
}

/**
 * Who is calling with this bearer token. Throws the verifier's InvalidTokenError for a token that is not
 * accepted (the hook answers 401), and 401 when its user is unknown to the identity backend (deleted, or in Okta
 * mode suspended or deactivated). The user is never created here: the backend holds the accounts.
 */
export async function resolveCaller({ verifier, sessions }: CallerDeps, token: string): Promise<Caller> {
  const verified = await verifier.verifySignature(token);
  const { claims } = verified;
  // The session's liveness and the user, in one round trip to the database (embedded mode).
  const account = await sessions.accountOf(verified);
  if (!account.alive) throw new InvalidTokenError(SESSION_ENDED_MESSAGE);
  if (!account.user) throw unauthorized('The signed-in user no longer exists', true);
  return { user: account.user, userCached: account.cached, claims };
}

/**
 * The caller's account as the identity backend holds it now, for an answer that shows the account's data: the
 * user the auth hook read for this request, or, when that came from Okta mode's short per-instance cache, the
 * user read again (which also refreshes the cache). 401 when the backend no longer knows the user.
 */
export async function currentUser(identity: IdentityBackend, caller: Caller): Promise<User> {
  if (!caller.userCached) return caller.user;
  const user = await identity.findById(caller.user.id);
  if (!user) throw unauthorized('The signed-in user no longer exists', true);
  return user;
}
