/**
 * The storage writes that end sessions or change what the per-call check's cache keeps of an account, reported to
 * the feed (auth/session-changes.ts) once they committed: a write outside a transaction right after it, a write in
 * a transaction after that transaction (the outermost) ended. Every domain reaches them through `app.storage`, which
 * is this wrapper (plugins/app/storage.ts), so a new caller of these writes is covered without knowing about the
 * cache; a new write method of these stores is classified in WATCHED_WRITES / UNWATCHED_METHODS (a test checks
 * that every method is in one of them).
 *
 * Why after the commit: a read of another request that runs between the write and its commit still sees the old
 * rows, and could cache them; the invalidation after the commit drops that entry, and a read still under way then
 * is not stored (the cache's generations).
 */
import type { OrgSessionStore } from '../storage/org-sessions.js';
import type { ProviderStore } from '../storage/provider.js';
import type { Storage } from '../storage/index.js';
import type { TokenNotBeforeStore } from '../storage/token-not-before.js';
import type { UserStore } from '../storage/users.js';
import { accountTag, grantTag, tokenTag, type SessionChanges } from './session-changes.js';

/** The methods wrapped below, per store: each ends sessions or grants, revokes a token, or changes the account. */
export const WATCHED_WRITES = {
  provider: [
    'destroy',
    'revokeByGrantId',
    'revokeAccessToken',
    'endAccountGrantsKeepingSession',
    'endSessions',
  ],
  users: ['updateProfile', 'setPasswordHash', 'replacePasswordHash'],
  tokenNotBefore: ['set'],
  orgSessions: ['end'],
} as const;

/**
 * The other methods of those stores, and why they need no report: reads; writes that create (nothing cached can be
 * about them yet) or that the bound covers (an expiry, a session saved by the provider), or that touch nothing
 * the check reads.
 */
export const UNWATCHED_METHODS = {
  provider: [
    'upsert',
    'find',
    'findByUid',
    'findByUserCode',
    'consume',
    'deleteExpired',
    'isTokenAlive',
    'tokenAccount',
    'sessionLoginTime',
    'grantCreated',
    'grantsOfAccount',
    'countLiveInteractions',
  ],
  users: ['findById', 'findByEmail', 'credentialsByEmail', 'insert', 'passwordHashOf'],
  tokenNotBefore: ['get'],
  orgSessions: ['seen', 'find', 'refused', 'listLive', 'findLive', 'prune'],
} as const;

/**
 * Collects a transaction's tags (published once it committed), or publishes each write's right away. `ending`: the
 * write ended sessions or revoked a token (its answer waits until the other instances were told); otherwise it
 * changed the account's data, which they are told without holding the answer (a profile save's throughput).
 */
type Report = (tags: readonly string[], ending: boolean) => Promise<void>;

/** `inner` with the writes above reported to `changes` once committed. */
export function watchSessionChanges(inner: Storage, changes: SessionChanges): Storage {
  return watched(inner, (tags, ending) => changes.publish(tags, { waitForOthers: ending }), undefined);
}

/** `outer`: the report of the transaction this storage is bound to (its tags wait for its commit), if any. */
function watched(inner: Storage, report: Report, outer: Report | undefined): Storage {
  return {
    ...inner,
    transaction: async (work) => {
      // Nested: the same transaction, whose end publishes.
      if (outer !== undefined) return inner.transaction((tx) => work(watched(tx, outer, outer)));
      const tags = new Set<string>();
      let ending = false;
      const collect: Report = async (more, ends) => {
        for (const tag of more) tags.add(tag);
        ending ||= ends;
      };
      try {
        return await inner.transaction((tx) => work(watched(tx, collect, collect)));
      } finally {
        // Published even after a failure: a commit whose answer was lost may still have happened.
        await report([...tags], ending);
      }
    },
    provider: watchedProvider(inner.provider, report),
    users: watchedUsers(inner.users, report),
    tokenNotBefore: watchedTokenNotBefore(inner.tokenNotBefore, report),
    orgSessions: watchedOrgSessions(inner.orgSessions, report),
  };
}

/** `inner` with `overrides` in front: the store's other methods (and its fields) are its own, unchanged. */
function overriding<T extends object>(inner: T, overrides: Partial<T>): T {
  return Object.assign(Object.create(inner) as T, overrides);
}

/**
 * Runs `write`, then reports the tags `tagsOf` names (even when it failed: it may have committed). `ending`: see
 * Report.
 */
async function reported<T>(
  report: Report,
  write: () => Promise<T>,
  tagsOf: () => string[],
  ending = true,
): Promise<T> {
  try {
    return await write();
  } finally {
    await report(tagsOf(), ending);
  }
}

function watchedProvider(store: ProviderStore, report: Report): ProviderStore {
  return overriding(store, {
    destroy(model, id, alongside) {
      if (model === 'Grant')
        return reported(
          report,
          () => store.destroy(model, id, alongside),
          () => [grantTag(id)],
        );
      if (model !== 'Session') return store.destroy(model, id, alongside);
      // A session's account is known once the store read its row: it hands it to the writes alongside.
      let account: string | undefined;
      return reported(
        report,
        () =>
          store.destroy(model, id, async (tx, accountId) => {
            account = accountId;
            await alongside?.(tx, accountId);
          }),
        () => (account === undefined ? [] : [accountTag(account)]),
      );
    },
    revokeByGrantId: (grantId) =>
      reported(
        report,
        () => store.revokeByGrantId(grantId),
        () => [grantTag(grantId)],
      ),
    revokeAccessToken: (jti, expiresAt) =>
      reported(
        report,
        () => store.revokeAccessToken(jti, expiresAt),
        () => [tokenTag(jti)],
      ),
    endAccountGrantsKeepingSession: (accountId, keep) =>
      reported(
        report,
        () => store.endAccountGrantsKeepingSession(accountId, keep),
        () => [accountTag(accountId)],
      ),
    endSessions: (accountId, which) =>
      reported(
        report,
        () => store.endSessions(accountId, which),
        () => [accountTag(accountId)],
      ),
  });
}

function watchedUsers(store: UserStore, report: Report): UserStore {
  // The account's data (a password change ends the sessions through the provider's store, in its transaction).
  const data = (id: string) => () => [accountTag(id)];
  return overriding(store, {
    updateProfile: (id, changes, now) =>
      reported(report, () => store.updateProfile(id, changes, now), data(id), false),
    setPasswordHash: (id, hash, now) =>
      reported(report, () => store.setPasswordHash(id, hash, now), data(id), false),
    replacePasswordHash: (id, expected, hash, now) =>
      reported(report, () => store.replacePasswordHash(id, expected, hash, now), data(id), false),
  });
}

function watchedTokenNotBefore(store: TokenNotBeforeStore, report: Report): TokenNotBeforeStore {
  return overriding(store, {
    set: (accountId, at, exceptJti) =>
      reported(
        report,
        () => store.set(accountId, at, exceptJti),
        () => [accountTag(accountId)],
      ),
  });
}

function watchedOrgSessions(store: OrgSessionStore, report: Report): OrgSessionStore {
  return overriding(store, {
    end: (userId, which, at) =>
      reported(
        report,
        () => store.end(userId, which, at),
        () => [accountTag(userId)],
      ),
  });
}
