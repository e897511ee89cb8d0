import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { API_ERRORS } from 'shared-auth/contract';
import { DuplicateEmailError, type Directory } from '../directory/directory.js';
import { refusal, unauthorized } from '../http/errors.js';
import type { Caller } from '../plugins/types.js';
import type { AccountSessions } from './sessions.js';
import {
  InvalidTokenError,
  SESSION_ENDED_MESSAGE,
  type AccessTokenClaims,
  type TokenVerifier,
} from './verifier.js';

/** The caller the /api auth hook attached; a route outside that hook calling this is a programming error. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Error(`${request.method} ${request.url} ran without the auth hook`);
  return request.caller;
}

export interface CallerDeps {
  verifier: TokenVerifier;
  directory: Directory;
  sessions: AccountSessions;
  /** Okta mode: a user the directory does not know yet is created from the token's claims. */
  provisionUsers: boolean;
}

/**
 * Okta is the source of the account: its user is created here from the access token's claims on their first
 * call, and this store keeps the profile fields.
 */
async function provisionUser(
  directory: Directory,
  userId: string,
  claims: AccessTokenClaims,
  log: FastifyBaseLogger,
) {
  const text = (name: string) => (typeof claims[name] === 'string' ? (claims[name] as string) : '');
  const email = text('email') || (claims.sub?.includes('@') ? claims.sub : '');
  if (!email) {
    throw refusal(
      API_ERRORS.tokenWithoutEmail,
      'The access token carries no email to create the account with',
    );
  }
  try {
    const user = await directory.createUser({
      id: userId,
      email,
      givenName: text('given_name'),
      familyName: text('family_name'),
      country: /^[A-Za-z]{2}$/.test(text('country')) ? text('country') : '',
      isFederated: claims.isFederated === true,
    });
    log.info({ userId }, 'user created from an Okta access token');
    return user;
  } catch (error) {
    if (error instanceof DuplicateEmailError) {
      throw refusal(API_ERRORS.emailInUse, 'Another account already uses this email');
    }
    throw error;
  }
}

/**
 * Who is calling with this bearer token. Throws the verifier's InvalidTokenError for a token that is not
 * accepted (the hook answers 401), and 401 when its user no longer exists (embedded mode).
 */
export async function resolveCaller(
  { verifier, directory, sessions, provisionUsers }: CallerDeps,
  token: string,
  log: FastifyBaseLogger,
): Promise<Caller> {
  const verified = await verifier.verifySignature(token);
  const { userId, claims } = verified;
  // The session's liveness and the user, in one round trip to the database.
  const account = await sessions.accountOf(verified);
  if (!account.alive) throw new InvalidTokenError(SESSION_ENDED_MESSAGE);
  let { user } = account;
  if (!user && provisionUsers) user = await provisionUser(directory, userId, claims, log);
  if (!user) throw unauthorized('The signed-in user no longer exists', true);
  return { user, claims };
}
