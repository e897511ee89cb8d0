/**
 * The org's System Log read for one user (`GET /api/v1/logs`, scope `okta.logs.read`): one page of the user's events
 * of a time window, newest first, and Okta's position of the next page. Okta's `Link: <…>; rel="next"` carries it
 * (the SDK's collection parses the header): its `after` token and its `until`, which Okta moves to the last event
 * of the page. The filter is always built here from the user id and the event types the caller names: nothing the
 * browser sent reaches it.
 */
import { isStatus } from './answers.js';
import type { OktaLog, OktaOrg } from './client.js';

/** Where the next page starts, as Okta's next link says: its opaque `after` token and its `until` (ISO 8601). */
export interface SystemLogPosition {
  after: string;
  until: string;
}

/** What one read gives. */
export type SystemLogAnswer =
  /** Okta's events as its SDK gives them (shape checked by the reader), and the next page's position, or null. */
  | { kind: 'page'; events: readonly unknown[]; next: SystemLogPosition | null }
  /** The portal's credentials may not read the System Log (Okta's 403, or no `okta.logs.read` asked for). */
  | { kind: 'forbidden' }
  /** Okta refused the request of a later page (a position it does not know). */
  | { kind: 'position-refused' };

export interface SystemLogQuery {
  /** Only these event types (Okta's names, e.g. `user.session.start`). */
  eventTypes: readonly string[];
  /** The window: events published from `since` to `until`. */
  since: Date;
  until: Date;
  /** The next page's position (from an earlier answer); absent for the first page. */
  position?: SystemLogPosition | undefined;
  /** At most this many events (Okta: 0–1000). */
  limit: number;
}

/** An Okta user id, an `after` token and event type names as the filter and the query may carry them. */
const USER_ID = /^[A-Za-z0-9]{1,64}$/;
const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/;
/** The characters an `after` token may have (Okta's are a timestamp and a counter, or a UUID). */
export const AFTER_TOKEN = /^[A-Za-z0-9._~-]{1,200}$/;

/**
 * The SCIM filter of a user's events: those the user did (`actor.id`) or that were done to the account
 * (`target.id`, e.g. an admin's or the portal's service app's changes), of the listed types.
 */
export function userEventsFilter(userId: string, eventTypes: readonly string[]): string {
  if (!USER_ID.test(userId)) throw new Error('not an Okta user id');
  if (eventTypes.length === 0 || !eventTypes.every((type) => EVENT_TYPE.test(type))) {
    throw new Error('not Okta event type names');
  }
  const types = eventTypes.map((type) => `eventType eq "${type}"`).join(' or ');
  return `(${types}) and (actor.id eq "${userId}" or target.id eq "${userId}")`;
}

/** The next page's position in Okta's next link, or null (no link, or one without an `after` this reader takes). */
export function positionOf(nextUrl: string | undefined, until: string): SystemLogPosition | null {
  if (!nextUrl) return null;
  let query: URLSearchParams;
  try {
    query = new URL(nextUrl).searchParams;
  } catch {
    return null;
  }
  const after = query.get('after');
  if (after === null || !AFTER_TOKEN.test(after)) return null;
  const nextUntil = query.get('until');
  const valid = nextUntil !== null && !Number.isNaN(Date.parse(nextUntil));
  return { after, until: valid ? new Date(nextUntil).toISOString() : until };
}

export class OktaSystemLog {
  /**
   * `askedScope`: whether the service app asks for `okta.logs.read` (always true with an API token, whose admin's
   * role decides). Without it the log is not asked: Okta would refuse every read.
   */
  private warned = false;

  constructor(
    private readonly org: OktaOrg,
    private readonly askedScope: boolean,
    private readonly log?: OktaLog,
  ) {}

  /** Once per instance: the reason the account's activity is not shown. */
  private forbidden(): SystemLogAnswer {
    if (!this.warned) {
      this.warned = true;
      this.log?.warn(
        { operation: 'listLogEvents', askedScope: this.askedScope },
        "Okta's System Log cannot be read with the portal's credentials: activity answers 501. Add okta.logs.read to OKTA_SCOPES and grant it to the service app (or give the API token's admin a role that reads the System Log)",
      );
    }
    return { kind: 'forbidden' };
  }

  /** One page of the user's events, newest first. A read, so repeated within the rate-limit budget on 429. */
  async read(userId: string, query: SystemLogQuery): Promise<SystemLogAnswer> {
    if (!this.askedScope) return this.forbidden();
    const filter = userEventsFilter(userId, query.eventTypes);
    const until = query.position?.until ?? query.until.toISOString();
    try {
      return await this.org.call('listLogEvents', 'repeatable', async (client): Promise<SystemLogAnswer> => {
        try {
          const collection = await client.systemLogApi.listLogEvents({
            since: query.since.toISOString(),
            until,
            ...(query.position ? { after: query.position.after } : {}),
            filter,
            limit: query.limit,
            sortOrder: 'DESCENDING',
          });
          // One page: the collection reads the answer's Link header and keeps the next page's URL.
          const events = await collection.getNextPage();
          return { kind: 'page', events, next: positionOf(collection.nextUri, until) };
        } catch (error) {
          // Seen here, before the org's policy would make them a 502.
          if (isStatus(error, 403)) return this.forbidden();
          if (query.position && isStatus(error, 400)) return { kind: 'position-refused' };
          throw error;
        }
      });
    } catch (error) {
      throw this.org.unexpected('listLogEvents', error);
    }
  }
}
