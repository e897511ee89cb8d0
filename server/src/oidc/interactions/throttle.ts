import type { Db } from '../../db/connection.js';

/**
 * Failed sign-ins per throttle key: after MAX_FAILURES within WINDOW_MS, further attempts under that key are
 * refused until the oldest failure leaves the window. A key is the email for browsers the account does not know
 * (`emailKey`), or a device of the account (`deviceKey`, from its device cookie), so strangers' failures that
 * lock an email do not lock out the browsers the account holder signed in with before.
 *
 * An attempt is RESERVED before the password is checked: counted and recorded in one IMMEDIATE transaction, so a
 * parallel burst (or several processes) gets at most MAX_FAILURES argon2 checks per key and window. A wrong
 * password leaves the reservation as its failure; a right one clears the key. Kept in SQLite
 * (`signin_failures`, migration 006): a restart forgets nothing, and only rows older than the window are ever
 * deleted. A reservation that cannot be written (full, read-only or locked database) throws the SQLite error:
 * the caller refuses the sign-in (fails closed).
 */
export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60 * 1000;

export interface Reservation {
  key: string;
  /** Attempts under the key within the window, this one included: MAX_FAILURES means a failure locks the key. */
  count: number;
}

export type ReserveOutcome =
  { kind: 'reserved'; reservation: Reservation } | { kind: 'refused'; retryAfterMs: number };

export class SignInThrottle {
  private readonly s;
  private readonly reserveImmediate: (key: string) => ReserveOutcome;

  constructor(
    db: Db,
    private readonly now: () => number,
    private readonly maxFailures = MAX_FAILURES,
    private readonly windowMs = WINDOW_MS,
  ) {
    this.s = {
      since: db
        .prepare<[string, number], number>(
          'SELECT at FROM signin_failures WHERE key = ? AND at > ? ORDER BY at',
        )
        .pluck(),
      insert: db.prepare<[string, number]>('INSERT INTO signin_failures (key, at) VALUES (?, ?)'),
      clear: db.prepare<[string]>('DELETE FROM signin_failures WHERE key = ?'),
      prune: db.prepare<[number]>('DELETE FROM signin_failures WHERE at <= ?'),
    };
    const reserve = db.transaction((key: string): ReserveOutcome => {
      const now = this.now();
      this.s.prune.run(now - this.windowMs);
      const times = this.s.since.all(key, now - this.windowMs);
      const wait = this.waitFor(times, now);
      if (wait > 0) return { kind: 'refused', retryAfterMs: wait };
      this.s.insert.run(key, now);
      return { kind: 'reserved', reservation: { key, count: times.length + 1 } };
    });
    this.reserveImmediate = (key) => reserve.immediate(key);
  }

  private waitFor(times: number[], now: number): number {
    if (times.length < this.maxFailures) return 0;
    const oldest = times[times.length - this.maxFailures] ?? now;
    return Math.max(0, oldest + this.windowMs - now);
  }

  /** Counts one attempt under `key` before the password is checked, or refuses it at the limit. */
  reserve(key: string): ReserveOutcome {
    return this.reserveImmediate(key);
  }

  /** Whether a failure of this reservation is the one that locks its key. */
  locks(reservation: Reservation): boolean {
    return reservation.count >= this.maxFailures;
  }

  /** Milliseconds until `key` may try again; 0 when it may try now. */
  retryAfter(key: string): number {
    const now = this.now();
    return this.waitFor(this.s.since.all(key, now - this.windowMs), now);
  }

  /** A right password: the reservation and every failure of its key are forgotten. */
  succeeded(reservation: Reservation): void {
    this.s.clear.run(reservation.key);
  }

  /** Deletes the rows that no longer count (older than the window); never a row that still counts. */
  prune(): number {
    return this.s.prune.run(this.now() - this.windowMs).changes;
  }
}

/** The key of a browser the account does not know: the email as typed, normalised and hashed (no address or
 * mistyped password is stored in clear), with `hash` a keyed hash of the server's. */
export function emailKey(normalisedEmail: string, hash: (value: string) => string): string {
  return `email:${hash(normalisedEmail)}`;
}

/** The key of a browser that signed in to this account before (its device cookie). */
export function deviceKey(deviceId: string, accountId: string): string {
  return `device:${deviceId}:${accountId}`;
}
