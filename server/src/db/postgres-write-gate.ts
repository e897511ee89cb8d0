/**
 * How PostgreSQL write transactions run one at a time, like SQLite's BEGIN IMMEDIATE: across instances, each takes
 * the advisory lock WRITE_LOCK_KEY first (BEGIN_WRITE); within one instance, they wait at the WriteGate holding no
 * connection.
 */

/**
 * An advisory lock key (bigint, "portal" in ASCII then a number). Every write transaction of every instance takes
 * it first, so they run one at a time like SQLite's BEGIN IMMEDIATE; migrations take their own key
 * (db/migrate-postgres.ts) so a starting instance never waits behind (or holds up) the writes of running ones.
 */
export const WRITE_LOCK_KEY = '8101820098839052289';

/** A write transaction's first statement. */
export const BEGIN_WRITE = `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`;

/**
 * One write transaction of this instance at a time, in arrival order; a waiter that has waited `maxWaitMs` gives
 * up with pg's own message for a connection that was not free in time (db/errors.ts: 503 with Retry-After).
 */
export class WriteGate {
  private busy = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly maxWaitMs: number) {}

  /** How many transactions wait for their turn (not counting the one running). */
  get queued(): number {
    return this.waiting.length;
  }

  enter(): Promise<() => void> {
    const release = () => {
      const next = this.waiting.shift();
      if (next) next();
      else this.busy = false;
    };
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve(release);
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(turn);
        if (index < 0) return;
        this.waiting.splice(index, 1);
        reject(new Error('timeout exceeded when trying to connect'));
      }, this.maxWaitMs);
      this.waiting.push(turn);
    });
  }
}
