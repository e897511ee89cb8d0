/**
 * Failed sign-ins per email: after MAX_FAILURES failures within WINDOW_MS, further attempts for that email
 * are refused until the oldest failure leaves the window. A success clears the count. Kept in memory: a
 * restart forgets it, which is acceptable for a single-process portal (documented in the README).
 */
export const MAX_FAILURES = 10;
export const WINDOW_MS = 15 * 60 * 1000;

export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures = MAX_FAILURES,
    private readonly windowMs = WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {}

  private recent(key: string): number[] {
    const since = this.now() - this.windowMs;
    const times = (this.failures.get(key) ?? []).filter((time) => time > since);
    if (times.length === 0) this.failures.delete(key);
    else this.failures.set(key, times);
    return times;
  }

  /** Milliseconds until this email may try again; 0 when it may try now. */
  retryAfter(email: string): number {
    const times = this.recent(email.toLowerCase());
    if (times.length < this.maxFailures) return 0;
    const oldest = times[times.length - this.maxFailures] ?? this.now();
    return Math.max(0, oldest + this.windowMs - this.now());
  }

  recordFailure(email: string): void {
    const key = email.toLowerCase();
    const times = this.recent(key);
    times.push(this.now());
    this.failures.set(key, times.slice(-this.maxFailures));
    // Bound memory under a spray of made-up emails: forget the oldest entries past 10 000 emails.
    if (this.failures.size > 10_000) {
      const oldestKey = this.failures.keys().next().value;
      if (oldestKey !== undefined) this.failures.delete(oldestKey);
    }
  }

  recordSuccess(email: string): void {
    this.failures.delete(email.toLowerCase());
  }
}
