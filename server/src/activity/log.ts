/**
 * The account's activity (issue 22): each security event written in the transaction of the change it records (the
 * outbox's pattern: pass the change's own store, `tx.activity`), so a change that rolls back leaves no event and a
 * committed one always has its event. Never written from the browser: only the server's own changes call
 * `record`. Embedded mode only: in Okta mode the accounts and their sign-ins are the org's (`enabled` false,
 * `record` writes nothing).
 */
import type { ActivityEventKind, ActivityPage } from 'shared-auth/contract';
import type { ClientDescriber, ClientDescription, ClientOrigin } from '../clients/describe.js';
import type { ActivityEventStore, NewActivityEvent } from '../storage/activity-events.js';
import { activityPage, decodeCursor } from './pages.js';
import { pruneActivity } from './retention.js';

/** One event to record: whose, what, and its method or reason (the contract's details), or none. */
export interface ActivityEntry {
  userId: string;
  kind: ActivityEventKind;
  detail?: string | undefined;
}

export interface ActivityLogOptions {
  /** Whether events are kept (the embedded identity backend). */
  enabled: boolean;
  /** The events' store outside any change (the list, the retention). */
  store: ActivityEventStore;
  /** Browser, system, device, country and coarse address of a request. */
  describer: ClientDescriber;
  /** The app's clock (ms since the epoch). */
  now: () => number;
}

/** Writes the account's security events. */
export class ActivityLog {
  constructor(private readonly options: ActivityLogOptions) {}

  /** Whether this server keeps activity (embedded mode). */
  get enabled(): boolean {
    return this.options.enabled;
  }

  /**
   * Appends the event to `within`: the store of the change's transaction (`tx.activity`), so the event commits or
   * rolls back with the change. A failure throws, and so fails the change.
   */
  async record(within: ActivityEventStore, entry: ActivityEntry, origin: ClientOrigin): Promise<void> {
    const event = this.prepare(entry, origin);
    if (event) await within.append(event);
  }

  /**
   * The event as it will be written, described and stamped now (undefined when activity is off): a caller whose
   * transaction is another's (the provider's save, oidc/adapter.ts) prepares it before, so the client's
   * description (the User-Agent parsed, the country looked up) never runs while the write lock is held.
   */
  prepare(entry: ActivityEntry, origin: ClientOrigin): NewActivityEvent | undefined {
    if (!this.enabled) return undefined;
    return {
      userId: entry.userId,
      kind: entry.kind,
      detail: entry.detail ?? null,
      at: this.options.now(),
      ...this.options.describer.describe(origin),
    };
  }

  /** A client as the events describe it (the Devices list describes its sessions the same way). */
  describe(origin: ClientOrigin): ClientDescription {
    return this.options.describer.describe(origin);
  }

  /**
   * Records an event that no change goes with (a refused sign-in: nothing of the account changed), on its own.
   */
  async recordRefusal(entry: ActivityEntry, origin: ClientOrigin): Promise<void> {
    await this.record(this.options.store, entry, origin);
  }

  /**
   * A page of the user's events, newest first: `before` the `next` of the page before (a malformed one reads as
   * the first page; the route's schema refuses it before), `limit` 1–50.
   */
  page(
    userId: string,
    query: { before?: string | undefined; limit?: number | undefined },
  ): Promise<ActivityPage> {
    return activityPage(this.options.store, userId, {
      before: query.before === undefined ? undefined : decodeCursor(query.before),
      limit: query.limit,
      now: this.options.now(),
    });
  }

  /** Deletes the events older than 90 days; returns how many (the retention job). */
  prune(): Promise<number> {
    return pruneActivity(this.options.store, this.options.now());
  }
}
