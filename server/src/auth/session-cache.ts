/**
 * What the per-call check reads of an access token (its session and grant alive, the token not revoked or issued
 * before the account's "not before", the caller's account), kept in this instance's memory for at most `ttlMs`
 * (SESSION_CACHE_MS). Entries are tagged (auth/session-changes.ts: the account, the grant, the token) and dropped
 * at once when a write that ends sessions or changes the account publishes one of their tags: on this instance
 * directly, on the others through PostgreSQL's LISTEN/NOTIFY (db/postgres-notifications.ts).
 *
 * Two rules keep it correct without the notifications, and against them:
 * - The bound: an entry expires `ttlMs` after its read STARTED, so its value never describes the database as it
 *   was more than `ttlMs` ago, whatever the notifications do (a lost connection, a slow read).
 * - No stale refill: a read that started before an invalidation of one of its tags is not stored (each
 *   invalidation takes the next generation; a read remembers the generation it started at). Invalidation records
 *   are forgotten after `ttlMs`: a read older than that is expired when it ends, and is not stored either.
 * Only positive answers are kept (the caller's session lives); a refusal is read every time.
 */

/** How many entries one instance keeps at most (oldest dropped first): a few per signed-in user and second. */
const MAX_ENTRIES = 10_000;

interface Entry<V> {
  value: V;
  tags: readonly string[];
  /** When the read that produced it started, plus ttlMs (the cache's clock). */
  expiresAt: number;
}

interface Flight<V> {
  promise: Promise<V>;
  tags: readonly string[];
  /** Set when one of its tags was invalidated while it ran: later callers start their own read. */
  spoilt: boolean;
}

export interface SessionCacheOptions {
  /** How long an entry lives after its read started (ms); 0: nothing is kept, every call reads. */
  ttlMs: number;
  /** A monotonic clock in ms (tests give their own). */
  now?: () => number;
  maxEntries?: number;
}

export class SessionCache<V> {
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly maxEntries: number;
  private readonly entries = new Map<string, Entry<V>>();
  /** Reads under way, shared by the calls that arrive while they run (one read per token, not one per call). */
  private readonly flights = new Map<string, Flight<V>>();
  /** Each tag's last invalidation: its generation and when (forgotten after ttlMs, see the header). */
  private readonly invalidated = new Map<string, { generation: number; at: number }>();
  private generation = 0;
  /** The generation of the last clear(): reads that started before it are not stored. */
  private clearedAt = 0;

  constructor(options: SessionCacheOptions) {
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? (() => performance.now());
    this.maxEntries = options.maxEntries ?? MAX_ENTRIES;
  }

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /** How many entries are kept now (expired ones included until they are swept). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The value kept for `key`, or the one `read` answers now. It is kept (under `tagsOf()`, asked on a miss only)
   * when `keep` says so, no invalidation of its tags happened since the read started, and it has not already
   * outlived the bound.
   */
  async get(
    key: string,
    tagsOf: () => readonly string[],
    read: () => Promise<V>,
    keep: (value: V) => boolean,
  ): Promise<V> {
    if (!this.enabled) return read();
    const now = this.now();
    const entry = this.entries.get(key);
    if (entry !== undefined) {
      if (entry.expiresAt > now) return entry.value;
      this.entries.delete(key);
    }
    const flight = this.flights.get(key);
    if (flight !== undefined && !flight.spoilt) return flight.promise;
    const tags = tagsOf();
    const started = { generation: this.generation, at: now };
    const promise = read();
    const mine: Flight<V> = { promise, tags, spoilt: false };
    this.flights.set(key, mine);
    try {
      const value = await promise;
      if (keep(value) && !mine.spoilt && this.freshSince(started, tags))
        this.store(key, value, tags, started.at);
      return value;
    } finally {
      if (this.flights.get(key) === mine) this.flights.delete(key);
    }
  }

  /** Drops every entry (and read under way) carrying one of `tags`; reads that started before are not stored. */
  invalidate(tags: Iterable<string>): void {
    if (!this.enabled) return;
    const dropped = new Set(tags);
    if (dropped.size === 0) return;
    const now = this.now();
    this.generation += 1;
    for (const tag of dropped) {
      // Deleted first so that the map stays in the order of the invalidations (the sweep below relies on it).
      this.invalidated.delete(tag);
      this.invalidated.set(tag, { generation: this.generation, at: now });
    }
    this.forgetOldInvalidations(now);
    for (const [key, entry] of this.entries) {
      if (entry.tags.some((tag) => dropped.has(tag))) this.entries.delete(key);
    }
    for (const flight of this.flights.values()) {
      if (flight.tags.some((tag) => dropped.has(tag))) flight.spoilt = true;
    }
  }

  /** Drops everything (the notifications were lost for a while: what they said is unknown). */
  clear(): void {
    this.generation += 1;
    this.clearedAt = this.generation;
    this.entries.clear();
    for (const flight of this.flights.values()) flight.spoilt = true;
  }

  private freshSince(started: { generation: number; at: number }, tags: readonly string[]): boolean {
    if (this.clearedAt > started.generation) return false;
    return tags.every((tag) => (this.invalidated.get(tag)?.generation ?? 0) <= started.generation);
  }

  private store(key: string, value: V, tags: readonly string[], startedAt: number): void {
    const now = this.now();
    const expiresAt = startedAt + this.ttlMs;
    // A read slower than the bound: its answer is already too old to keep.
    if (expiresAt <= now) return;
    this.entries.delete(key);
    this.entries.set(key, { value, tags, expiresAt });
    // Entries go in roughly in expiry order: sweep the expired ones from the front, then the oldest past the cap.
    for (const [oldKey, old] of this.entries) {
      if (old.expiresAt > now && this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldKey);
    }
  }

  /** Invalidation records older than the bound can no longer matter (see the header). */
  private forgetOldInvalidations(now: number): void {
    for (const [tag, record] of this.invalidated) {
      if (record.at > now - this.ttlMs) break;
      this.invalidated.delete(tag);
    }
  }
}
