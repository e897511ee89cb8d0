import { HttpError } from '../http/errors.js';
import type { ThrottleEvents } from '../storage/throttle-events.js';

/** How many attempts of one key a throttle admits within its sliding window. */
export interface ThrottleLimit {
  max: number;
  windowMs: number;
}

/** An attempt counted before it is checked. */
export interface Reservation {
  key: string;
  /** When it was recorded (ms), so it can be taken back. */
  at: number;
  /** Attempts of the key within the window, this one included: `max` means a failure locks the key. */
  count: number;
}

export type ReserveOutcome =
  { kind: 'reserved'; reservation: Reservation } | { kind: 'refused'; retryAfterMs: number };

/**
 * A sliding-window limit: at most `max` attempts per key within `windowMs`; past it, attempts of that key are
 * refused until the oldest counted one leaves the window. Every throttle of the server is one of these, each with
 * its own limit and storage (see limits.ts): wrong passwords (password change, reauthenticate), failed sign-ins,
 * wrong 2-step codes, email code sends. An attempt is reserved BEFORE the costly or guessable check runs, so a
 * parallel burst gets at most `max` checks, and an attempt that cannot be recorded is refused before anything
 * is checked.
 */
export class Throttle {
  constructor(
    private readonly events: ThrottleEvents,
    private readonly limit: ThrottleLimit,
    private readonly now: () => number,
  ) {}

  get max(): number {
    return this.limit.max;
  }

  private waitFor(times: number[], now: number): number {
    const { max, windowMs } = this.limit;
    if (times.length < max) return 0;
    // Allowed again once the oldest of the last `max` events leaves the window.
    const oldest = times[times.length - max] ?? now;
    return Math.max(0, oldest + windowMs - now);
  }

  /** Milliseconds until `key` may try again; 0 when it may try now. */
  async retryAfterMs(key: string): Promise<number> {
    const now = this.now();
    return this.waitFor(await this.events.since(key, now - this.limit.windowMs), now);
  }

  /** When the attempts that count now stop counting: the end of a lockout (ms since the epoch). */
  async lockedUntil(key: string): Promise<number> {
    return this.now() + (await this.retryAfterMs(key));
  }

  /** Counts one attempt under `key` before it is checked, or refuses it at the limit. */
  async reserve(key: string): Promise<ReserveOutcome> {
    const now = this.now();
    const times = await this.events.reserve(key, now, now - this.limit.windowMs, this.limit.max);
    const wait = this.waitFor(times, now);
    if (wait > 0) return { kind: 'refused', retryAfterMs: wait };
    return { kind: 'reserved', reservation: { key, at: now, count: times.length + 1 } };
  }

  /** Like reserve, but a refusal is thrown: `refusal(retryAfterMs)`, usually `tooManyRequests(…)`. */
  async reserveOrThrow(key: string, refusal: (retryAfterMs: number) => Error): Promise<Reservation> {
    const outcome = await this.reserve(key);
    if (outcome.kind === 'refused') throw refusal(outcome.retryAfterMs);
    return outcome.reservation;
  }

  /** Whether a failure of this reservation is the one that locks its key (the account holder is told then). */
  locks(reservation: Reservation): boolean {
    return reservation.count >= this.limit.max;
  }

  /** Takes a reservation back: the attempt did not happen after all. */
  undo(reservation: Reservation): Promise<void> {
    return this.events.remove(reservation.key, reservation.at);
  }

  /** A right password or code: every counted attempt of the key is forgotten. */
  clear(key: string): Promise<void> {
    return this.events.clear(key);
  }

  /** Deletes the events that no longer count (older than the window); never one that still counts. */
  prune(): Promise<number> {
    return this.events.prune(this.now() - this.limit.windowMs);
  }
}

/** The Retry-After value (whole seconds, at least 1) of a wait in ms. */
export function retryAfterSeconds(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

/** The 429 answer of a throttle: `message` and Retry-After. */
export function tooManyRequests(message: string, waitMs: number): HttpError {
  return new HttpError(429, message, { 'Retry-After': String(retryAfterSeconds(waitMs)) });
}

/** "N minutes" / "N seconds", rounded up, for refusal messages. */
export function describeWait(ms: number): string {
  const seconds = retryAfterSeconds(ms);
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
