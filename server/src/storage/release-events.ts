/**
 * The releases' audit (migration 021's `release_events`): who did what to a remote's releases, and when. Kept, never
 * pruned: a few rows per release. The interface and its SQL.
 */
import type { ReleaseAction } from 'shared-auth/contract';
import type { Sql } from '../db/sql.js';

export interface ReleaseEvent {
  /** ms since the epoch. */
  at: number;
  action: ReleaseAction;
  version: string | null;
  /** A deploy key's label, or `system` (the automatic rollback). */
  actor: string;
}

export interface ReleaseEventStore {
  add(remote: string, event: ReleaseEvent): Promise<void>;
  /** The remote's last `limit` events, newest first. */
  latest(remote: string, limit: number): Promise<ReleaseEvent[]>;
}

/** The store over the portal's database, or over a transaction's (`tx.sql`). */
export function releaseEventStore(sql: Sql): ReleaseEventStore {
  return {
    async add(remote, event) {
      await sql.run(
        'INSERT INTO release_events (remote, at, action, version, actor) VALUES (?, ?, ?, ?, ?)',
        [remote, event.at, event.action, event.version, event.actor],
      );
    },
    async latest(remote, limit) {
      const rows = await sql.all<{
        at: number;
        action: ReleaseAction;
        version: string | null;
        actor: string;
      }>('SELECT at, action, version, actor FROM release_events WHERE remote = ? ORDER BY seq DESC LIMIT ?', [
        remote,
        limit,
      ]);
      return rows.map((row) => ({ ...row, at: Number(row.at) }));
    },
  };
}
