/**
 * The account's activity as the page reads it (GET /api/v1/users/{sub}/activity): newest first, within the
 * retention's 90 days. Embedded mode: the portal's own events by keyset pages (`before` is the `next` of the page
 * before: the last event's time and id). Okta mode: the org's System Log, a page of Okta's for a page of the
 * portal's (`before` carries the position of Okta's next page).
 */
import {
  ACTIVITY_CURSOR_PATTERN,
  ACTIVITY_PAGE_DEFAULT,
  ACTIVITY_PAGE_MAX,
  ORG_ACTIVITY_CURSOR_PATTERN,
  type ActivityPage,
} from 'shared-auth/contract';
import type { ClientDescriber } from '../clients/describe.js';
import type { ActivityCursor, ActivityEventStore } from '../storage/activity-events.js';
import { mapOrgEvents, ORG_ACTIVITY_EVENT_TYPES } from './org-events.js';
import { activitySince } from './retention.js';

/** A cursor as the page gets it: `<ms>_<id>`. */
export function encodeCursor(cursor: ActivityCursor): string {
  return `${cursor.at}_${cursor.id}`;
}

/** The cursor of a `before`, or undefined when it is not one (the route's schema refuses those first). */
export function decodeCursor(text: string): ActivityCursor | undefined {
  if (!ACTIVITY_CURSOR_PATTERN.test(text)) return undefined;
  const [at = '', id = ''] = text.split('_');
  return { at: Number(at), id };
}

/** `limit` clamped to 1–50 (default 20). */
function pageSize(limit: number | undefined): number {
  return Math.min(Math.max(1, Math.trunc(limit ?? ACTIVITY_PAGE_DEFAULT)), ACTIVITY_PAGE_MAX);
}

/** One page of the user's events. `limit` is clamped to 1–50 (default 20). */
export async function activityPage(
  store: ActivityEventStore,
  userId: string,
  { before, limit, now }: { before?: ActivityCursor | undefined; limit?: number | undefined; now: number },
): Promise<ActivityPage> {
  const size = pageSize(limit);
  // One more than asked says whether there is a next page without a count.
  const rows = await store.list(userId, { before, since: activitySince(now), limit: size + 1 });
  const events = rows.slice(0, size);
  const last = events[events.length - 1];
  return {
    events: events.map((event) => ({
      id: event.id,
      kind: event.kind,
      detail: event.detail,
      at: new Date(event.at).toISOString(),
      browser: event.browser,
      os: event.os,
      deviceType: event.deviceType,
      country: event.country,
      address: event.address,
    })),
    next: rows.length > size && last ? encodeCursor(last) : null,
  };
}

/** Where the org's System Log's next page starts: Okta's `after` token and its `until` (ISO 8601). */
export interface OrgLogPosition {
  after: string;
  until: string;
}

/** The org's System Log as the list reads it (identity/okta/system-log.ts). */
export interface OrgLogReader {
  read(
    userId: string,
    query: {
      eventTypes: readonly string[];
      since: Date;
      until: Date;
      position?: OrgLogPosition | undefined;
      limit: number;
    },
  ): Promise<
    | { kind: 'page'; events: readonly unknown[]; next: OrgLogPosition | null }
    | { kind: 'forbidden' }
    | { kind: 'position-refused' }
  >;
}

/** A page of Okta mode, or why there is none: the org's log cannot be read, or `before` is not a cursor of it. */
export type OrgActivityAnswer =
  { kind: 'page'; page: ActivityPage } | { kind: 'unavailable' } | { kind: 'cursor-refused' };

/** Okta mode's cursor, `o<until ms>.<after>` (the contract's ORG_ACTIVITY_CURSOR_PATTERN). */
export function encodeOrgCursor(position: OrgLogPosition): string {
  return `o${Date.parse(position.until)}.${position.after}`;
}

/** The position a cursor carries, or undefined when `text` is not one (its pattern, a time that is one). */
export function decodeOrgCursor(text: string): OrgLogPosition | undefined {
  if (!ORG_ACTIVITY_CURSOR_PATTERN.test(text)) return undefined;
  const dot = text.indexOf('.');
  const until = Number(text.slice(1, dot));
  if (!Number.isSafeInteger(until)) return undefined;
  return { until: new Date(until).toISOString(), after: text.slice(dot + 1) };
}

/** A cursor's `until` may be up to this far ahead of the portal's clock (the org's clock may run ahead). */
const CLOCK_SKEW_MS = 5 * 60 * 1000;
/** Okta pages read for one page of the list while they hold nothing it shows (other users' changes, …). */
const MAX_ORG_PAGES = 3;

/**
 * One page of the user's events from the org's System Log, newest first, 90 days back: Okta's page of `limit`
 * events of the listed types done by or to the user, mapped (org-events.ts). A page may hold fewer events than
 * `limit` (Okta's had events the list does not show); one that would be empty reads on, up to 3 of Okta's pages.
 */
export async function orgActivityPage(
  reader: OrgLogReader,
  describer: ClientDescriber,
  userId: string,
  { before, limit, now }: { before?: string | undefined; limit?: number | undefined; now: number },
): Promise<OrgActivityAnswer> {
  const size = pageSize(limit);
  const since = activitySince(now);
  let position = before === undefined ? undefined : decodeOrgCursor(before);
  if (before !== undefined) {
    const until = position ? Date.parse(position.until) : Number.NaN;
    // Outside the window it cannot be a cursor this server gave: refused without asking Okta.
    if (!(until >= since && until <= now + CLOCK_SKEW_MS)) return { kind: 'cursor-refused' };
  }
  for (let read = 1; ; read += 1) {
    const answer = await reader.read(userId, {
      eventTypes: ORG_ACTIVITY_EVENT_TYPES,
      since: new Date(since),
      // Up to the org's clock too: an event Okta stamped a moment ahead of this server's clock is listed.
      until: new Date(now + CLOCK_SKEW_MS),
      position,
      limit: size,
    });
    if (answer.kind === 'forbidden') return { kind: 'unavailable' };
    if (answer.kind === 'position-refused') return { kind: 'cursor-refused' };
    const events = mapOrgEvents(userId, answer.events, describer);
    if (events.length > 0 || answer.next === null || read >= MAX_ORG_PAGES) {
      return {
        kind: 'page',
        page: { events, next: answer.next === null ? null : encodeOrgCursor(answer.next) },
      };
    }
    position = answer.next;
  }
}
