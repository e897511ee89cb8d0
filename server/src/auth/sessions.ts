import type { Sql } from '../db/sql.js';
import { rowToUser, type User, type UserRow } from '../directory/store.js';
import { TOKEN_ALIVE_SQL, tokenAliveParams, type RevokedSessions } from '../oidc/adapter.js';
import type { IdentityBackend } from '../identity/types.js';
import type { Storage } from '../storage/index.js';
import type { VerifiedToken } from './verifier.js';

/** The user of an access token and whether its sign-in session still lives. */
export interface TokenAccount {
  alive: boolean;
  /** Undefined when the user no longer exists. */
  user: User | undefined;
  /** The user came from a short per-instance cache, not from the identity backend during this call (Okta mode). */
  cached: boolean;
}

/**
 * The sign-in sessions behind access tokens: whether a token's session still lives, when it signed in, and
 * ending an account's other sessions. The embedded provider keeps them in its store; an Okta org keeps its own.
 */
export interface AccountSessions {
  /** Whether the token's session still lives (the token's signature is already checked). */
  isAlive(token: VerifiedToken): Promise<boolean>;
  /**
   * The token's user and its session's liveness, in one storage round trip: asked on every authenticated call.
   */
  accountOf(token: VerifiedToken): Promise<TokenAccount>;
  /** When the token's session signed in with a password (ms since the epoch), if known. */
  signedInAt(token: VerifiedToken): Promise<number | undefined>;
  /**
   * Ends every session of the account but `keepSessionUid` (the caller's `sid`): their refresh tokens and
   * grants too, so their access tokens are refused at once. Pass the change's transaction as `within`.
   */
  endOtherSessions(
    userId: string,
    keepSessionUid: string | undefined,
    within: Storage,
  ): Promise<RevokedSessions>;
}

const NOTHING_ENDED: RevokedSessions = { sessions: 0, grants: 0, tokens: 0, interactions: 0 };

const epochNow = () => Math.floor(Date.now() / 1000);

/** The token's session, grant and jti, or undefined when it lacks one (such a token has no session). */
function sessionOf({ userId, claims }: VerifiedToken) {
  const { sid, gid, jti } = claims;
  if (typeof sid !== 'string' || typeof gid !== 'string' || typeof jti !== 'string') return undefined;
  return { accountId: userId, sid, gid, jti };
}

/**
 * The user row and the liveness check as one statement: a one-row select left-joined to the user, so a missing
 * user still answers (alive, no user).
 */
const ACCOUNT_OF_TOKEN = `SELECT ${TOKEN_ALIVE_SQL} AS alive, users.*
  FROM (SELECT 1 AS one) AS one LEFT JOIN users ON users.id = ?`;

/** Embedded mode: the provider's own sessions and grants. A token without `sid`/`gid`/`jti` has no session. */
export function providerSessions(storage: Storage): AccountSessions {
  const sql: Sql = storage.sql;
  return {
    async isAlive(token) {
      const session = sessionOf(token);
      return session !== undefined && (await storage.provider.isTokenAlive(session));
    },
    async accountOf(token) {
      const session = sessionOf(token);
      if (!session) return { alive: false, user: await storage.users.findById(token.userId), cached: false };
      const row = await sql.get<{ alive: number } & Partial<UserRow>>(ACCOUNT_OF_TOKEN, [
        ...tokenAliveParams(session, epochNow()),
        token.userId,
      ]);
      return {
        alive: row?.alive === 1,
        user: row?.id ? rowToUser(row as UserRow) : undefined,
        cached: false,
      };
    },
    async signedInAt({ userId, claims }) {
      if (typeof claims.sid !== 'string') return undefined;
      const seconds = await storage.provider.sessionLoginTime(userId, claims.sid);
      return seconds === undefined ? undefined : seconds * 1000;
    },
    endOtherSessions(userId, keepSessionUid, within) {
      return within.provider.revokeAccountExcept(userId, keepSessionUid);
    },
  };
}

/**
 * Okta mode: sessions live in the org. Its access tokens are short-lived and checked for signature, issuer,
 * audience, client and scope; their `auth_time` tells when the user signed in. The user is Okta's, read through
 * the backend's per-call cache (`findCaller`). The portal ends none of the org's sessions: Okta's only call for
 * it (DELETE /api/v1/users/{id}/sessions) cannot spare the caller's own, so a change that ends the other sessions
 * ends only the portal's records of them (their step-up grants).
 */
export function orgSessions(identity: Pick<IdentityBackend, 'findCaller'>): AccountSessions {
  return {
    isAlive: async () => true,
    accountOf: async (token) => ({ alive: true, ...(await identity.findCaller(token.userId)) }),
    signedInAt: async ({ claims }) =>
      typeof claims.auth_time === 'number' ? claims.auth_time * 1000 : undefined,
    endOtherSessions: async () => NOTHING_ENDED,
  };
}
