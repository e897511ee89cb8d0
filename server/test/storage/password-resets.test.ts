/** Storage conformance (both engines): password reset links (PasswordResetStore) and the reset requests' events. */
import { describe, expect, it } from 'vitest';
import { freshId, insertUser, storageForFile } from '../support/storage.js';

const t = storageForFile();
const NOW = Date.UTC(2026, 0, 1);
const TTL = 30 * 60 * 1000;

function link(userId: string, fingerprint = 'fp-1') {
  return {
    tokenHash: freshId('h'),
    userId,
    passwordFingerprint: fingerprint,
    createdAt: NOW,
    expiresAt: NOW + TTL,
  };
}

describe('password reset links', () => {
  it('finds a link until it expires, with its account, fingerprint and counts', async () => {
    const { id } = await insertUser(t.storage);
    const issued = link(id);
    await t.storage.passwordResets.issue(issued);
    expect(await t.storage.passwordResets.find(issued.tokenHash, NOW)).toEqual({
      ...issued,
      attempts: 0,
      factorVerified: false,
    });
    expect(await t.storage.passwordResets.find(issued.tokenHash, NOW + TTL)).toBeUndefined();
    expect(await t.storage.passwordResets.find('no-such-hash', NOW)).toBeUndefined();
  });

  it('voids the older links of the account when a newer one is issued, not another account’s', async () => {
    const a = await insertUser(t.storage);
    const b = await insertUser(t.storage);
    const older = link(a.id);
    const others = link(b.id);
    await t.storage.passwordResets.issue(older);
    await t.storage.passwordResets.issue(others);
    const newer = link(a.id);
    await t.storage.passwordResets.issue(newer);
    expect(await t.storage.passwordResets.find(older.tokenHash, NOW)).toBeUndefined();
    expect(await t.storage.passwordResets.find(newer.tokenHash, NOW)).toBeDefined();
    expect(await t.storage.passwordResets.find(others.tokenHash, NOW)).toBeDefined();
  });

  it('counts posts atomically, records the second factor, and answers nothing for a gone link', async () => {
    const { id } = await insertUser(t.storage);
    const issued = link(id);
    await t.storage.passwordResets.issue(issued);
    const counts = await Promise.all(
      Array.from({ length: 5 }, () => t.storage.passwordResets.countAttempt(issued.tokenHash, NOW)),
    );
    expect(counts.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(await t.storage.passwordResets.countAttempt(issued.tokenHash, NOW + TTL)).toBeUndefined();
    await t.storage.passwordResets.markFactorVerified(issued.tokenHash);
    expect((await t.storage.passwordResets.find(issued.tokenHash, NOW))?.factorVerified).toBe(true);
    await t.storage.passwordResets.delete(issued.tokenHash);
    expect(await t.storage.passwordResets.countAttempt(issued.tokenHash, NOW)).toBeUndefined();
  });

  it('is used once, only under its password fingerprint and before it expires', async () => {
    const { id } = await insertUser(t.storage);
    const issued = link(id, 'fp-now');
    await t.storage.passwordResets.issue(issued);
    expect(await t.storage.passwordResets.consume(issued.tokenHash, 'fp-other', NOW)).toBe(false);
    expect(await t.storage.passwordResets.consume(issued.tokenHash, 'fp-now', NOW + TTL)).toBe(false);
    const racing = await Promise.all([
      t.storage.passwordResets.consume(issued.tokenHash, 'fp-now', NOW),
      t.storage.passwordResets.consume(issued.tokenHash, 'fp-now', NOW),
    ]);
    expect(racing.filter(Boolean)).toHaveLength(1);
  });

  it('voids every link of an account, and prunes the expired ones', async () => {
    const { id } = await insertUser(t.storage);
    const issued = link(id);
    await t.storage.passwordResets.issue(issued);
    expect(await t.storage.passwordResets.deleteOf(id)).toBe(1);
    const expired = { ...link(id), expiresAt: NOW - 1 };
    await t.storage.passwordResets.issue(expired);
    expect(await t.storage.passwordResets.prune(NOW)).toBeGreaterThanOrEqual(1);
    expect(await t.storage.passwordResets.find(expired.tokenHash, NOW - 10)).toBeUndefined();
  });

  it("keeps the reset requests' events per key (the per-email throttle)", async () => {
    const events = t.storage.throttles.passwordResetRequests;
    const key = freshId('email');
    expect(await events.reserve(key, NOW, NOW - 1000, 2)).toEqual([]);
    expect(await events.reserve(key, NOW + 1, NOW - 1000, 2)).toEqual([NOW]);
    expect(await events.reserve(key, NOW + 2, NOW - 1000, 2)).toEqual([NOW, NOW + 1]);
    expect(await events.since(key, NOW - 1000)).toEqual([NOW, NOW + 1]);
    await events.clear(key);
    expect(await events.since(key, NOW - 1000)).toEqual([]);
  });
});
