import type { ProviderStore, RevokedSessions } from '../oidc/adapter.js';
import type { VerifiedToken } from './verifier.js';

/**
 * The sign-in sessions behind access tokens: whether a token's session still lives, when it signed in, and
 * ending an account's other sessions. The embedded provider keeps them in its store; an Okta org keeps its own.
 */
export interface AccountSessions {
  /** Asked on every authenticated call (the token's signature is already checked). */
  isAlive(token: VerifiedToken): boolean;
  /** When the token's session signed in with a password (ms since the epoch), if known. */
  signedInAt(token: VerifiedToken): number | undefined;
  /**
   * Ends every session of the account but `keepSessionUid` (the caller's `sid`): their refresh tokens and
   * grants too, so their access tokens are refused at once. Synchronous: run it inside the change's transaction.
   */
  endOtherSessions(userId: string, keepSessionUid: string | undefined): RevokedSessions;
}

const NOTHING_ENDED: RevokedSessions = { sessions: 0, grants: 0, tokens: 0, interactions: 0 };

/** Embedded mode: the provider's own sessions and grants. A token without `sid`/`gid`/`jti` has no session. */
export function providerSessions(store: ProviderStore): AccountSessions {
  return {
    isAlive({ userId, claims }) {
      const { sid, gid, jti } = claims;
      if (typeof sid !== 'string' || typeof gid !== 'string' || typeof jti !== 'string') return false;
      return store.isTokenAlive({ accountId: userId, sid, gid, jti });
    },
    signedInAt({ userId, claims }) {
      if (typeof claims.sid !== 'string') return undefined;
      const seconds = store.sessionLoginTime(userId, claims.sid);
      return seconds === undefined ? undefined : seconds * 1000;
    },
    endOtherSessions(userId, keepSessionUid) {
      return store.revokeAccountExcept(userId, keepSessionUid);
    },
  };
}

/**
 * Okta mode: sessions live in the org. Its access tokens are short-lived and checked for signature, issuer,
 * audience, client and scope; their `auth_time` tells when the user signed in. The portal cannot end the org's
 * sessions with the user's token (a later change does it through Okta's API).
 */
export function orgSessions(): AccountSessions {
  return {
    isAlive: () => true,
    signedInAt: ({ claims }) => (typeof claims.auth_time === 'number' ? claims.auth_time * 1000 : undefined),
    endOtherSessions: () => NOTHING_ENDED,
  };
}
