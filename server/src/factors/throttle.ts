import type { FactorStore, ThrottleKind } from './store.js';

/** Wrong codes (step-up verify, activate, sign-in): at most 5 per user in any 5 minutes, as Okta does. */
export const MAX_WRONG_CODES = 5;
export const WRONG_CODE_WINDOW_MS = 5 * 60 * 1000;
/** Email codes: at most one send per user every 30 seconds, the spec's resend countdown. */
export const EMAIL_SEND_INTERVAL_MS = 30 * 1000;

/**
 * A sliding-window limit per user, kept in SQLite so a restart does not reset it. `retryAfter` answers how
 * many ms remain until the next attempt is allowed (0: allowed now).
 */
export class WindowThrottle {
  constructor(
    private readonly store: FactorStore,
    private readonly kind: ThrottleKind,
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  /** How many events count now. */
  count(userId: string): number {
    return this.store.eventsSince(userId, this.kind, this.now() - this.windowMs).length;
  }

  /** When the attempts that count now stop counting: the end of a lockout (ms since the epoch). */
  lockedUntil(userId: string): number {
    return this.now() + this.retryAfter(userId);
  }

  retryAfter(userId: string): number {
    const now = this.now();
    const times = this.store.eventsSince(userId, this.kind, now - this.windowMs);
    if (times.length < this.max) return 0;
    // The attempt is allowed again once the oldest counted event leaves the window.
    const oldest = times[times.length - this.max] ?? now;
    return Math.max(0, oldest + this.windowMs - now);
  }

  /** Records an event; returns its time, so a failed action can take it back. */
  record(userId: string): number {
    const at = this.now();
    this.store.addEvent(userId, this.kind, at);
    return at;
  }

  undo(userId: string, at: number): void {
    this.store.removeEvent(userId, this.kind, at);
  }

  clear(userId: string): void {
    this.store.clearEvents(userId, this.kind);
  }
}

/** "N minutes" / "N seconds", rounded up, for refusal messages. */
export function describeWait(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}
