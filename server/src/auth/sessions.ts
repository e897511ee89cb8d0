import { HttpError } from '../http/errors.js';
import type { RevokedSessions } from '../storage/provider.js';
import type { User } from '../storage/users.js';
import type { IdentityBackend } from '../identity/types.js';
import type { Storage } from '../storage/index.js';
import { orgSignInOf, SIGN_IN_SEEN_RESOLUTION_MS } from './org-sign-in.js';
import type { SessionCache } from './session-cache.js';
import { accountTag, grantTag, tokenTag } from './session-changes.js';
import { issuedBeforeChange } from './token-not-before.js';
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
   * grants too, so their access tokens are refused at once. Embedded: the caller's grant and refresh tokens end
   * as well (only its provider session stays, to renew silently). Okta: the account's access tokens issued
   * before now are refused but the caller's (`keepTokenId`, its `jti`). Pass the change's transaction as `within`.
   */
  endOtherSessions(
    userId: string,
    keepSessionUid: string | undefined,
    within: Storage,
    keepTokenId?: string | undefined,
  ): Promise<RevokedSessions>;
  /**
   * The part of ending the other sessions that is not in the portal's database, run once the change's transaction
   * committed (never inside it). Okta: the account's refresh tokens for the portal's clients are revoked at the
   * org, the org's sessions kept. Embedded: nothing (endOtherSessions ended them). When the org fails, the change
   * and the portal's writes stay: the upstream failure (502, or 503) is thrown with a text that says so.
   */
  endOtherSessionsAfterCommit(userId: string): Promise<void>;
}

/** The answer when a change was saved but the org could not revoke the account's refresh tokens. */
export const CHANGE_SAVED_TOKENS_NOT_REVOKED =
  'Your password or 2-step change was saved, but the identity service could not sign your other devices out. Sign out of them in your organization, or ask your administrator.';

const NOTHING_ENDED: RevokedSessions = { sessions: 0, grants: 0, tokens: 0, interactions: 0 };

/** The token's session, grant and jti, or undefined when it lacks one (such a token has no session). */
function sessionOf({ userId, claims }: VerifiedToken) {
  const { sid, gid, jti } = claims;
  if (typeof sid !== 'string' || typeof gid !== 'string' || typeof jti !== 'string') return undefined;
  return { accountId: userId, sid, gid, jti };
}

/** What the per-call check of an embedded-mode token reads: its liveness and its user (storage/provider.ts). */
export type ProviderTokenAccount = Awaited<ReturnType<Storage['provider']['tokenAccount']>>;

/**
 * Embedded mode: the provider's own sessions and grants. A token without `sid`/`gid`/`jti` has no session.
 * `cache`: the per-call check's answers for a live session, kept briefly (auth/session-cache.ts).
 */
export function providerSessions(
  storage: Storage,
  cache?: SessionCache<ProviderTokenAccount>,
): AccountSessions {
  return {
    async isAlive(token) {
      const session = sessionOf(token);
      return session !== undefined && (await storage.provider.isTokenAlive(session));
    },
    async accountOf(token) {
      const session = sessionOf(token);
      if (!session) return { alive: false, user: await storage.users.findById(token.userId), cached: false };
      // The user row and the liveness check in one statement.
      const read = () => storage.provider.tokenAccount(session);
      const account = cache
        ? await cache.get(
            `${session.accountId} ${session.jti}`,
            () => [accountTag(session.accountId), grantTag(session.gid), tokenTag(session.jti)],
            read,
            (answer) => answer.alive && answer.user !== undefined,
          )
        : await read();
      // Not `cached` in the Okta sense: an entry is at most SESSION_CACHE_MS old, and dropped by any change.
      return { ...account, cached: false };
    },
    async signedInAt({ userId, claims }) {
      if (typeof claims.sid !== 'string') return undefined;
      const seconds = await storage.provider.sessionLoginTime(userId, claims.sid);
      return seconds === undefined ? undefined : seconds * 1000;
    },
    endOtherSessions(userId, keepSessionUid, within) {
      // Every grant chain ends, the caller's too: its page renews silently with the kept session's cookie.
      return within.provider.endAccountGrantsKeepingSession(userId, keepSessionUid);
    },
    endOtherSessionsAfterCommit: async () => undefined,
  };
}

/**
 * Okta mode: sessions live in the org. Its access tokens are checked for signature, issuer, audience, client and
 * scope; their `auth_time` tells when the user signed in. The user is Okta's, read through the backend's per-call
 * cache (`findCaller`). The portal ends none of the org's sessions: Okta's only call for it
 * (DELETE /api/v1/users/{id}/sessions) cannot spare the caller's own. Instead a change that ends the other sessions
 * records the account's "not before" (token-not-before.ts, in the change's transaction): from the next call on,
 * every instance refuses the account's access tokens issued before the change but the caller's, as ended. After
 * the commit the account's refresh tokens for `clientIds` (the clients whose tokens the API takes) are revoked at
 * the org, or a refresh would mint tokens issued after the change; the caller renews with its org session.
 * A sign-in signed out from the Devices list (devices/org-sessions.ts) has its tokens refused the same way, on
 * every call, by its row (auth/org-sign-in.ts).
 */
export function orgSessions(
  identity: Pick<IdentityBackend, 'findCaller' | 'revokeRefreshTokens'>,
  storage: Pick<Storage, 'tokenNotBefore' | 'orgSessions'>,
  now: () => number,
  clientIds: readonly string[],
  cache?: SessionCache<boolean>,
): AccountSessions {
  const marks = storage.tokenNotBefore;
  /** Whether the token's sign-in was signed out from the Devices list (its ended row outlives its tokens). */
  const signedOutFromList = async (token: VerifiedToken) => {
    const signIn = orgSignInOf(token);
    const row = signIn === undefined ? undefined : await storage.orgSessions.find(signIn);
    if (signIn === undefined || row?.endedAt == null) return false;
    // Refused tokens keep coming: the row (and so the refusal) lasts a retention window after the last of them.
    const at = now();
    if (row.lastSeenAt <= at - SIGN_IN_SEEN_RESOLUTION_MS) {
      await storage.orgSessions.refused(signIn, at, at - SIGN_IN_SEEN_RESOLUTION_MS);
    }
    return true;
  };
  const alive = async (token: VerifiedToken) => {
    const [mark, signedOut] = await Promise.all([marks.get(token.userId), signedOutFromList(token)]);
    return !signedOut && !issuedBeforeChange(token.claims, mark);
  };
  // The user is the backend's (its own per-instance cache): only the database's answer is kept here, when alive.
  const aliveNow = (token: VerifiedToken) => {
    const { jti } = token.claims;
    if (!cache || typeof jti !== 'string') return alive(token);
    return cache.get(
      `${token.userId} ${jti}`,
      () => [accountTag(token.userId), tokenTag(jti)],
      () => alive(token),
      (isAlive) => isAlive,
    );
  };
  return {
    isAlive: alive,
    async accountOf(token) {
      // Two primary-key reads (the "not before", the sign-in's row) beside the (usually cached) user: on every call.
      const [isAlive, caller] = await Promise.all([aliveNow(token), identity.findCaller(token.userId)]);
      return { alive: isAlive, ...caller };
    },
    signedInAt: async ({ claims }) =>
      typeof claims.auth_time === 'number' ? claims.auth_time * 1000 : undefined,
    async endOtherSessions(userId, _keepSessionUid, within, keepTokenId) {
      await within.tokenNotBefore.set(userId, now(), keepTokenId);
      return NOTHING_ENDED;
    },
    async endOtherSessionsAfterCommit(userId) {
      if (!identity.revokeRefreshTokens) return;
      try {
        await identity.revokeRefreshTokens(userId, clientIds);
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        // Okta's status and code (already logged), without a Retry-After: repeating the change would not help.
        throw new HttpError(error.statusCode, CHANGE_SAVED_TOKENS_NOT_REVOKED, {}, error.code);
      }
    },
  };
}
