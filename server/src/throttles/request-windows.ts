import type { RequestWindows } from '../storage/request-windows.js';
import { retryAfterSeconds } from './throttle.js';

/** The window of every per-address limit. */
export const REQUEST_WINDOW_MS = 60_000;

/**
 * At most `limit` requests per address in each one-minute window (fixed from the address's first request), counted
 * in shared storage under `name` (AUTHORIZE_RATE_LIMIT, TOKEN_RATE_LIMIT, the sign-in form's posts). Costs one
 * statement per request. Throws the storage's error when the request cannot be counted: callers answer 503 (fail
 * closed: what these limits guard needs the same database anyway).
 */
export class AddressLimiter {
  constructor(
    private readonly windows: RequestWindows,
    private readonly name: string,
    private readonly limit: number,
    private readonly now: () => number,
    private readonly windowMs = REQUEST_WINDOW_MS,
  ) {}

  /** Counts one request of `address`; resolves to the seconds to wait when it is over the limit, else 0. */
  async hit(address: string): Promise<number> {
    const now = this.now();
    const { count, endsAt } = await this.windows.hit(`${this.name}:${address}`, this.windowMs, now);
    return count > this.limit ? retryAfterSeconds(endsAt - now) : 0;
  }
}
