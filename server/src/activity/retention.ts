/**
 * How long the account's activity is kept (90 days, the contract's ACTIVITY_RETENTION_DAYS), and the job that
 * deletes what is older: at start-up and every 10 minutes, as the server's other clean-ups (plugins/app/activity.ts).
 */
import { ACTIVITY_RETENTION_DAYS } from 'shared-auth/contract';
import type { ActivityEventStore } from '../storage/activity-events.js';

export const ACTIVITY_RETENTION_MS = ACTIVITY_RETENTION_DAYS * 24 * 60 * 60 * 1000;

/** The oldest time (ms) an event may have at `now` and still be kept and listed. */
export function activitySince(now: number): number {
  return now - ACTIVITY_RETENTION_MS;
}

/** Deletes the events older than the retention at `now`; returns how many. */
export function pruneActivity(store: ActivityEventStore, now: number): Promise<number> {
  return store.deleteOlderThan(activitySince(now));
}
