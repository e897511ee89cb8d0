import type { User } from '../storage/users.js';

/** How long a user read from a remote identity backend answers the per-call path (Okta mode). */
export const USER_CACHE_TTL_MS = 30_000;
/** How many users one instance remembers; the oldest entry goes first. */
const USER_CACHE_SIZE = 10_000;

interface Entry {
  user: User | undefined;
  readAt: number;
}

/**
 * The users of a remote identity backend as this instance last read them, for the per-call auth path only: asking
 * Okta's Management API on every request would meet its rate limits (a few hundred reads a minute for the whole
 * org). An entry answers for `ttlMs` (unknown users too, so a token of a removed user does not cost a call each
 * time); this instance's own writes replace it. Another instance's writes, or an admin's in Okta, show once the
 * entry expires. Concurrent misses for one user make one read.
 */
export class UserCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<User | undefined>>();

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = USER_CACHE_TTL_MS,
  ) {}

  /** The user from the cache when read within the TTL (`cached`), otherwise from `load` (and remembered). */
  async get(
    userId: string,
    load: () => Promise<User | undefined>,
  ): Promise<{ user: User | undefined; cached: boolean }> {
    const entry = this.entries.get(userId);
    if (entry && this.now() - entry.readAt < this.ttlMs) return { user: entry.user, cached: true };
    let pending = this.loading.get(userId);
    if (!pending) {
      pending = load().finally(() => this.loading.delete(userId));
      this.loading.set(userId, pending);
    }
    // `load` remembers what it read (put).
    return { user: await pending, cached: false };
  }

  /** What the backend answered just now for this user (a read or a write of this instance). */
  put(userId: string, user: User | undefined): void {
    this.entries.delete(userId);
    if (this.entries.size >= USER_CACHE_SIZE) {
      // Maps keep insertion order: drop the oldest.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(userId, { user, readAt: this.now() });
  }

  /** Forgets the user (a write whose outcome is not known). */
  forget(userId: string): void {
    this.entries.delete(userId);
  }
}
