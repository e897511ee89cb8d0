/**
 * The account's activity as the page reads it (GET /api/v1/users/{sub}/activity): newest first, by keyset pages
 * (`before` is the `next` of the page before: the last event's time and id), within the retention's 90 days.
 */
import {
  ACTIVITY_CURSOR_PATTERN,
  ACTIVITY_PAGE_DEFAULT,
  ACTIVITY_PAGE_MAX,
  type ActivityPage,
} from 'shared-auth/contract';
import type { ActivityCursor, ActivityEventStore } from '../storage/activity-events.js';
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

/** One page of the user's events. `limit` is clamped to 1–50 (default 20). */
export async function activityPage(
  store: ActivityEventStore,
  userId: string,
  { before, limit, now }: { before?: ActivityCursor | undefined; limit?: number | undefined; now: number },
): Promise<ActivityPage> {
  const size = Math.min(Math.max(1, Math.trunc(limit ?? ACTIVITY_PAGE_DEFAULT)), ACTIVITY_PAGE_MAX);
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
