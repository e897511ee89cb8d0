/** Storage conformance (both engines): the account's activity (ActivityEventStore, migration 016). */
import { describe, expect, it } from 'vitest';
import type { NewActivityEvent } from '../../src/storage/activity-events.js';
import { insertUser, storageForFile } from '../support/storage.js';

const t = storageForFile();
const NOW = Date.UTC(2026, 0, 1);
const DAY = 24 * 60 * 60 * 1000;

const event = (userId: string, at: number, more: Partial<NewActivityEvent> = {}): NewActivityEvent => ({
  userId,
  kind: 'signed-in',
  detail: 'password',
  at,
  browser: 'Firefox',
  os: 'Linux',
  deviceType: 'desktop',
  country: 'GB',
  address: '81.2.69.x',
  ...more,
});

describe('activity events', () => {
  it('keeps an event as written, with a fresh id, and lists nothing for another user', async () => {
    const ada = await insertUser(t.storage);
    const bob = await insertUser(t.storage);
    const id = await t.storage.activity.append(event(ada.id, NOW, { detail: null, country: null }));
    expect(id).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(await t.storage.activity.list(ada.id, { since: 0, limit: 10 })).toEqual([
      { id, ...event(ada.id, NOW, { detail: null, country: null }) },
    ]);
    expect(await t.storage.activity.list(bob.id, { since: 0, limit: 10 })).toEqual([]);
  });

  it('lists newest first by keyset pages, ties broken by id, never older than `since`', async () => {
    const { id: userId } = await insertUser(t.storage);
    const ids: string[] = [];
    // Two events per millisecond: the cursor must split a tie without losing or repeating one.
    for (let i = 0; i < 10; i += 1)
      ids.push(await t.storage.activity.append(event(userId, NOW + Math.floor(i / 2))));
    const seen: string[] = [];
    let before: { at: number; id: string } | undefined;
    for (let page = 0; page < 10; page += 1) {
      const rows = await t.storage.activity.list(userId, { before, since: 0, limit: 3 });
      if (rows.length === 0) break;
      seen.push(...rows.map((row) => row.id));
      const last = rows[rows.length - 1]!;
      before = { at: last.at, id: last.id };
    }
    expect(seen).toHaveLength(10);
    expect(new Set(seen)).toEqual(new Set(ids));
    const all = await t.storage.activity.list(userId, { since: 0, limit: 50 });
    expect(all.map((row) => row.id)).toEqual(seen);
    for (let i = 1; i < all.length; i += 1) {
      const [newer, older] = [all[i - 1]!, all[i]!];
      expect(newer.at > older.at || (newer.at === older.at && newer.id > older.id)).toBe(true);
    }
    expect(await t.storage.activity.list(userId, { since: NOW + 4, limit: 50 })).toHaveLength(2);
  });

  it('deletes what is older than the cutoff, for every user, and keeps the rest', async () => {
    const ada = await insertUser(t.storage);
    const bob = await insertUser(t.storage);
    await t.storage.activity.append(event(ada.id, NOW - 91 * DAY));
    await t.storage.activity.append(event(bob.id, NOW - 91 * DAY));
    const kept = await t.storage.activity.append(event(ada.id, NOW - 89 * DAY));
    expect(await t.storage.activity.deleteOlderThan(NOW - 90 * DAY)).toBeGreaterThanOrEqual(2);
    expect((await t.storage.activity.list(ada.id, { since: 0, limit: 50 })).map((row) => row.id)).toEqual([
      kept,
    ]);
    expect(await t.storage.activity.list(bob.id, { since: 0, limit: 50 })).toEqual([]);
  });

  it('appends inside a transaction that rolls back: no event', async () => {
    const { id } = await insertUser(t.storage);
    await expect(
      t.storage.transaction(async (tx) => {
        await tx.activity.append(event(id, NOW));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await t.storage.activity.list(id, { since: 0, limit: 50 })).toEqual([]);
  });

  it("goes with its user (the directory's only)", async () => {
    const { id } = await insertUser(t.storage);
    await t.storage.activity.append(event(id, NOW));
    await t.storage.sql.run('DELETE FROM users WHERE id = ?', [id]);
    expect(await t.storage.activity.list(id, { since: 0, limit: 50 })).toEqual([]);
  });
});
