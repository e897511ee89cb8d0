/**
 * Storage conformance (both engines): the Devices list's rows (AccountSessionStore, migration 017) and the provider
 * store's `endSessions`: a row is listed only while its provider session lives, "last active" moves by one
 * conditional update, and a row goes with its session however that ends.
 */
import { describe, expect, it } from 'vitest';
import type { NewAccountSession } from '../../src/storage/account-sessions.js';
import { sessionGrantKey } from '../../src/storage/grants.js';
import { hashedId } from '../../src/storage/provider.js';
import { freshId, insertUser, storageForFile } from '../support/storage.js';

const t = storageForFile();
const HOUR = 3600;
const NOW = Date.UTC(2026, 0, 1);
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A provider session of the account with one grant chain and its refresh token, and its Devices row. */
async function signedIn(accountId: string, more: Partial<NewAccountSession> = {}) {
  const sid = freshId('sess');
  const gid = freshId('grant');
  const cookie = freshId('cookie');
  const refreshToken = freshId('rt');
  await t.storage.provider.upsert(
    'Session',
    cookie,
    { uid: sid, accountId, loginTs: nowSeconds(), authorizations: { portal: { grantId: gid } } } as never,
    HOUR,
  );
  await t.storage.provider.upsert('Grant', gid, { accountId } as never, HOUR);
  await t.storage.provider.upsert(
    'RefreshToken',
    refreshToken,
    { accountId, grantId: gid, sessionUid: sid } as never,
    HOUR,
  );
  await t.storage.accountSessions.record({
    userId: accountId,
    sessionUid: sid,
    browser: 'Firefox',
    os: 'Linux',
    deviceType: 'desktop',
    country: 'GB',
    address: '81.2.69.x',
    signedInAt: NOW,
    ...more,
  });
  const [row] = (await t.storage.accountSessions.listLive(accountId, nowSeconds())).filter(
    (candidate) => candidate.sessionUidHash === hashedId(sid),
  );
  return { sid, gid, cookie, refreshToken, id: row?.id ?? '' };
}

const providerRowsOf = async (accountId: string) =>
  (
    await t.storage.sql.all<{ model: string }>(
      'SELECT model FROM oidc_payloads WHERE account_id = ? ORDER BY model',
      [accountId],
    )
  ).map((row) => row.model);

describe('account sessions', () => {
  it('keeps a session as described, under a fresh id and the hashed uid, listed for its account only', async () => {
    const ada = await insertUser(t.storage);
    const bob = await insertUser(t.storage);
    const session = await signedIn(ada.id);
    expect(session.id).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(await t.storage.accountSessions.listLive(ada.id, nowSeconds())).toEqual([
      {
        id: session.id,
        userId: ada.id,
        sessionUidHash: hashedId(session.sid),
        browser: 'Firefox',
        os: 'Linux',
        deviceType: 'desktop',
        country: 'GB',
        address: '81.2.69.x',
        signedInAt: NOW,
        lastActiveAt: null,
      },
    ]);
    expect(await t.storage.accountSessions.listLive(bob.id, nowSeconds())).toEqual([]);
    expect(await t.storage.accountSessions.findLive(bob.id, session.id, nowSeconds())).toBeUndefined();
    // A session saved again keeps its sign-in's row; an account the directory does not hold gets none.
    await t.storage.accountSessions.record({
      userId: ada.id,
      sessionUid: session.sid,
      browser: null,
      os: null,
      deviceType: null,
      country: null,
      address: null,
      signedInAt: NOW + 1,
    });
    expect(await t.storage.accountSessions.findLive(ada.id, session.id, nowSeconds())).toMatchObject({
      browser: 'Firefox',
      signedInAt: NOW,
    });
    await signedIn('00unotinthedirectory');
    expect(
      await t.storage.sql.all('SELECT id FROM account_sessions WHERE user_id = ?', ['00unotinthedirectory']),
    ).toEqual([]);
  });

  it('"last active" moves only when older than the given time; lists the most recently active first', async () => {
    const ada = await insertUser(t.storage);
    const older = await signedIn(ada.id);
    const newer = await signedIn(ada.id);
    expect(await t.storage.accountSessions.touch(older.sid, NOW + 60_000, NOW)).toBe(true);
    expect(await t.storage.accountSessions.touch(older.sid, NOW + 90_000, NOW + 30_000)).toBe(false);
    expect(await t.storage.accountSessions.touch(newer.sid, NOW + 120_000, NOW + 60_000)).toBe(true);
    const listed = await t.storage.accountSessions.listLive(ada.id, nowSeconds());
    expect(listed.map((row) => [row.id, row.lastActiveAt])).toEqual([
      [newer.id, NOW + 120_000],
      [older.id, NOW + 60_000],
    ]);
  });

  it('lists a session only while it lives; an expired one is pruned, a deleted user takes its rows', async () => {
    const ada = await insertUser(t.storage);
    const expiring = await signedIn(ada.id);
    const kept = await signedIn(ada.id);
    await t.storage.sql.run(`UPDATE oidc_payloads SET expires_at = 1 WHERE model = 'Session' AND uid = ?`, [
      hashedId(expiring.sid),
    ]);
    expect((await t.storage.accountSessions.listLive(ada.id, nowSeconds())).map((row) => row.id)).toEqual([
      kept.id,
    ]);
    expect(await t.storage.accountSessions.findLive(ada.id, expiring.id, nowSeconds())).toBeUndefined();
    await t.storage.provider.deleteExpired();
    expect(await t.storage.accountSessions.pruneOrphans()).toBe(1);
    await t.storage.sql.run('DELETE FROM users WHERE id = ?', [ada.id]);
    expect(await t.storage.sql.all('SELECT id FROM account_sessions WHERE user_id = ?', [ada.id])).toEqual(
      [],
    );
  });

  it("a sign-out (the session destroyed) and an account's other sessions ended take their rows", async () => {
    const ada = await insertUser(t.storage);
    const [a, b, c] = [await signedIn(ada.id), await signedIn(ada.id), await signedIn(ada.id)];
    await t.storage.provider.destroy('Session', a.cookie);
    await t.storage.provider.endAccountGrantsKeepingSession(ada.id, c.sid);
    const left = await t.storage.accountSessions.listLive(ada.id, nowSeconds());
    expect(left.map((row) => row.id)).toEqual([c.id]);
    expect(
      await t.storage.sql.all('SELECT id FROM account_sessions WHERE user_id = ?', [ada.id]),
    ).toHaveLength(1);
    expect(b.id).not.toBe(c.id);
  });

  it('endSessions: one, or all but one, each with its grant, refresh token, step-up grants and row', async () => {
    const ada = await insertUser(t.storage);
    const bob = await insertUser(t.storage);
    const [a, b, c] = [await signedIn(ada.id), await signedIn(ada.id), await signedIn(ada.id)];
    const bobs = await signedIn(bob.id);
    await t.storage.grants.put(ada.id, sessionGrantKey(b.sid), 'googleAuth', NOW + 60_000);

    // Another account's session is not ended by its hash.
    expect(await t.storage.provider.endSessions(ada.id, { only: hashedId(bobs.sid) })).toMatchObject({
      sessions: 0,
    });
    expect(await t.storage.provider.endSessions(ada.id, { only: hashedId(b.sid) })).toEqual({
      sessions: 1,
      grants: 1,
      tokens: 1,
      interactions: 0,
    });
    expect(await t.storage.provider.findByUid('Session', b.sid)).toBeUndefined();
    expect(await t.storage.provider.find('RefreshToken', b.refreshToken)).toBeUndefined();
    expect(await t.storage.grants.factorGrantExpiry(ada.id, sessionGrantKey(b.sid), NOW)).toBeUndefined();
    expect(
      (await t.storage.accountSessions.listLive(ada.id, nowSeconds())).map((row) => row.id).sort(),
    ).toEqual([a.id, c.id].sort());

    expect(await t.storage.provider.endSessions(ada.id, { except: hashedId(a.sid) })).toMatchObject({
      sessions: 1,
    });
    expect(await providerRowsOf(ada.id)).toEqual(['Grant', 'RefreshToken', 'Session']);
    expect(await t.storage.provider.endSessions(ada.id, { except: null })).toMatchObject({ sessions: 1 });
    expect(await providerRowsOf(ada.id)).toEqual([]);
    expect(await t.storage.accountSessions.listLive(ada.id, nowSeconds())).toEqual([]);
    expect(await t.storage.accountSessions.listLive(bob.id, nowSeconds())).toHaveLength(1);
  });
});
