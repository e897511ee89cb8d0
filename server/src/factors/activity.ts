/**
 * Which activity event (activity/) an account change records: the changes the holder is mailed about are the
 * changes the account's activity lists, so each site that queues a notice in a change's transaction records its
 * event there too, through this one mapping.
 */
import type { ActivityLog, ActivityEntry } from '../activity/log.js';
import type { ClientOrigin } from '../clients/describe.js';
import type { AccountEvent } from '../notifications/types.js';
import type { Storage } from '../storage/index.js';

/** The activity entry of an account event, or undefined for a notice the activity does not list (a lockout…). */
export function activityOf(userId: string, event: AccountEvent): ActivityEntry | undefined {
  switch (event.type) {
    case 'password-changed':
      return { userId, kind: 'password-changed' };
    case 'password-reset':
      return { userId, kind: 'password-reset' };
    case 'factor-activated':
      return { userId, kind: 'method-added', detail: event.factor };
    case 'factor-turned-on':
      return { userId, kind: 'method-turned-on', detail: event.factor };
    case 'factor-turned-off':
      return { userId, kind: 'method-turned-off', detail: event.factor };
    case 'factor-removed':
      return { userId, kind: 'method-removed', detail: event.factor };
    case 'passkey-added':
      return { userId, kind: 'method-added', detail: 'passkey' };
    case 'passkey-removed':
      return { userId, kind: 'method-removed', detail: 'passkey' };
    case 'recovery-codes-generated':
      return { userId, kind: 'recovery-codes-generated' };
    case 'recovery-code-used':
      return { userId, kind: 'recovery-code-used', detail: event.use };
    case 'sessions-signed-out':
      return { userId, kind: 'sessions-signed-out', detail: event.scope };
    default:
      return undefined;
  }
}

/** Records the activity event of `event` in `tx` (the change's transaction), when it has one. */
export async function recordActivityOf(
  activity: ActivityLog,
  tx: Storage,
  userId: string,
  event: AccountEvent,
  origin: ClientOrigin,
): Promise<void> {
  const entry = activityOf(userId, event);
  if (entry) await activity.record(tx.activity, entry, origin);
}
