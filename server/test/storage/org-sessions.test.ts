/**
 * Storage conformance (both engines): Okta mode's Devices rows (OrgSessionStore, migration 020). A sign-in's first
 * call writes its row once however many race, later calls move "last seen" at most once per resolution, an ended
 * row is never listed or moved back to live, and rows go once not seen for the window.
 */
import { describe, expect, it } from 'vitest';
import type { NewOrgSession } from '../../src/storage/org-sessions.js';
import { hashedId } from '../../src/storage/provider.js';
import { freshId, storageForFile } from '../support/storage.js';

const t = storageForFile();
const NOW = Date.UTC(2026, 0, 1);
const MINUTE = 60_000;
const LONG_AGO = NOW - 1000 * MINUTE;

function signIn(userId: string, more: Partial<NewOrgSession> = {}): NewOrgSession {
  return {
    userId,
    signIn: `${userId}\nauth_time:${freshId('t')}`,
    browser: 'Firefox',
    os: 'Linux',
    deviceType: 'desktop',
    country: 'GB',
    address: '81.2.69.x',
    signedInAt: NOW - MINUTE,
    ...more,
  };
}

const store = () => t.storage.orgSessions;

describe('org sessions store', () => {
  it('writes one row for a burst of first calls, kept hashed, described by the first', async () => {
    const userId = freshId('00u');
    const session = signIn(userId);
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store().seen({ ...session, browser: `Browser ${i}` }, NOW, NOW - MINUTE),
      ),
    );
    const rows = await store().listLive(userId, LONG_AGO);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ signInHash: hashedId(session.signIn), lastSeenAt: NOW, endedAt: null });
    expect(rows[0]?.id).toMatch(/^[0-9A-Za-z]{20}$/);
    const stored = await t.storage.sql.all<{ sign_in: string }>(
      'SELECT sign_in FROM org_sessions WHERE user_id = ?',
      [userId],
    );
    expect(stored).toEqual([{ sign_in: hashedId(session.signIn) }]);
  });

  it('moves last seen only when it is older than the resolution, and keeps the first description', async () => {
    const userId = freshId('00u');
    const session = signIn(userId);
    await store().seen(session, NOW, NOW - MINUTE);
    await store().seen({ ...session, browser: 'Chrome' }, NOW + 30_000, NOW + 30_000 - MINUTE);
    expect((await store().find(session.signIn))?.lastSeenAt).toBe(NOW);
    await store().seen(session, NOW + MINUTE, NOW);
    expect(await store().find(session.signIn)).toMatchObject({
      lastSeenAt: NOW + MINUTE,
      browser: 'Firefox',
    });
  });

  it('lists the live rows seen in the window, most recent first, and only the account’s', async () => {
    const userId = freshId('00u');
    const older = signIn(userId);
    const newer = signIn(userId);
    const stale = signIn(userId);
    await store().seen(older, NOW - 5 * MINUTE, NOW);
    await store().seen(newer, NOW, NOW);
    await store().seen(stale, LONG_AGO, NOW);
    await store().seen(signIn(freshId('00u')), NOW, NOW);
    const listed = await store().listLive(userId, LONG_AGO);
    expect(listed.map((row) => row.signInHash)).toEqual([hashedId(newer.signIn), hashedId(older.signIn)]);
    const first = listed[0];
    if (!first) throw new Error('no row');
    expect(await store().findLive(userId, first.id, LONG_AGO)).toMatchObject({ id: first.id });
    expect(await store().findLive(freshId('00u'), first.id, LONG_AGO)).toBeUndefined();
  });

  it('ends one by id or all but one; an ended row stays ended and is no longer listed', async () => {
    const userId = freshId('00u');
    const [a, b, c] = [signIn(userId), signIn(userId), signIn(userId)];
    for (const session of [a, b, c]) await store().seen(session, NOW, NOW);
    const idOf = async (session: NewOrgSession) => (await store().find(session.signIn))?.id ?? '';
    expect(await store().end(freshId('00u'), { only: await idOf(a) }, NOW)).toBe(0);
    expect(await store().end(userId, { only: await idOf(a) }, NOW + 1)).toBe(1);
    expect(await store().end(userId, { only: await idOf(a) }, NOW + 2)).toBe(0);
    expect(await store().find(a.signIn)).toMatchObject({ endedAt: NOW + 1, lastSeenAt: NOW + 1 });
    // A later call of the ended sign-in neither revives nor moves it.
    await store().seen(a, NOW + 10 * MINUTE, NOW + 9 * MINUTE);
    expect(await store().find(a.signIn)).toMatchObject({ endedAt: NOW + 1, lastSeenAt: NOW + 1 });
    expect(await store().end(userId, { except: hashedId(c.signIn) }, NOW + 3)).toBe(1);
    expect((await store().listLive(userId, LONG_AGO)).map((row) => row.signInHash)).toEqual([
      hashedId(c.signIn),
    ]);
    expect(await store().end(userId, { except: null }, NOW + 4)).toBe(1);
    expect(await store().listLive(userId, LONG_AGO)).toEqual([]);
  });

  it('moves an ended row’s last seen on a refusal, at most once per resolution; a live row never', async () => {
    const userId = freshId('00u');
    const [live, ended] = [signIn(userId), signIn(userId)];
    await store().seen(live, NOW, NOW);
    await store().seen(ended, NOW, NOW);
    await store().end(userId, { except: hashedId(live.signIn) }, NOW);
    await store().refused(ended.signIn, NOW + 30_000, NOW + 30_000 - MINUTE);
    expect((await store().find(ended.signIn))?.lastSeenAt).toBe(NOW);
    await store().refused(ended.signIn, NOW + 2 * MINUTE, NOW + MINUTE);
    expect((await store().find(ended.signIn))?.lastSeenAt).toBe(NOW + 2 * MINUTE);
    await store().refused(live.signIn, NOW + 2 * MINUTE, NOW + MINUTE);
    expect((await store().find(live.signIn))?.lastSeenAt).toBe(NOW);
  });

  it('prunes the rows not seen after the cut, ended or not', async () => {
    const userId = freshId('00u');
    const [kept, old, oldEnded] = [signIn(userId), signIn(userId), signIn(userId)];
    await store().seen(kept, NOW, NOW);
    await store().seen(old, NOW - 10 * MINUTE, NOW);
    await store().seen(oldEnded, NOW - 10 * MINUTE, NOW);
    await store().end(userId, { only: (await store().find(oldEnded.signIn))?.id ?? '' }, NOW - 10 * MINUTE);
    expect(await store().prune(NOW - MINUTE)).toBeGreaterThanOrEqual(2);
    expect(await store().find(old.signIn)).toBeUndefined();
    expect(await store().find(oldEnded.signIn)).toBeUndefined();
    expect(await store().find(kept.signIn)).toBeDefined();
  });
});
