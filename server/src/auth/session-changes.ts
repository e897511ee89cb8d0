/**
 * The feed of committed writes that end sessions or change an account, as tags naming what they touched: the
 * account, a grant (by its hash, as the database keeps it), an access token (its jti). The per-call check's cache
 * (auth/session-cache.ts) listens on it; storage writes are reported to it once committed
 * (auth/session-change-writes.ts). Beyond this process the tags go out through a relay (PostgreSQL's NOTIFY:
 * db/postgres-notifications.ts); SQLite has one instance, so the apps of one process over one file share one feed.
 */
import { hashedId } from '../storage/provider.js';

/** Every token of the account. */
export const accountTag = (userId: string): string => `a:${userId}`;
/** Every token of a grant (an authorization of one client in one session); the id hashed, as stored. */
export const grantTag = (grantId: string): string => `g:${hashedId(grantId)}`;
/** One access token, by its jti (a revoked token). */
export const tokenTag = (jti: string): string => `t:${jti}`;

export type ChangeListener = (tags: readonly string[]) => void;

export interface SessionChanges {
  /**
   * Tags of a committed write: this process's listeners drop them at once, then the relay tells the other
   * instances. With `waitForOthers` (a write that ended sessions) it resolves once the relay sent them (or gave up:
   * the cache's bound covers that); without, at once. Never throws.
   */
  publish(tags: readonly string[], options?: { waitForOthers?: boolean }): Promise<void>;
  /** Listens for published tags (this process's and, through the relay's owner, the other instances'). */
  listen(listener: ChangeListener): () => void;
  /** Where published tags go beyond this process (set once the relay is open). */
  relayTo(send: ((tags: readonly string[]) => Promise<void>) | undefined): void;
}

/** One feed per SQLite file in this process: every app over that file hears every other's writes. */
const sharedListeners = new Map<string, Set<ChangeListener>>();

/**
 * A feed. `sharedBy`: a key (the SQLite file) under which the feeds of this process share their listeners;
 * undefined: this app's own (PostgreSQL: the other instances hear through the relay, even in one process).
 */
export function sessionChanges(sharedBy?: string): SessionChanges {
  const own = new Set<ChangeListener>();
  const listeners = (): Set<ChangeListener> => {
    if (sharedBy === undefined) return own;
    const shared = sharedListeners.get(sharedBy) ?? new Set();
    sharedListeners.set(sharedBy, shared);
    return shared;
  };
  let relay: ((tags: readonly string[]) => Promise<void>) | undefined;
  return {
    async publish(tags, { waitForOthers = true } = {}) {
      if (tags.length === 0) return;
      for (const listener of listeners()) listener(tags);
      const sent = relay?.(tags);
      if (waitForOthers) await sent;
    },
    listen(listener) {
      listeners().add(listener);
      return () => {
        const set = listeners();
        set.delete(listener);
        if (sharedBy !== undefined && set.size === 0) sharedListeners.delete(sharedBy);
      };
    },
    relayTo(send) {
      relay = send;
    },
  };
}
