/**
 * Storage conformance (both engines): the "This wasn't me" links (NotMeLinkStore, migration 018) and the activity
 * store's lookup of one event (ActivityEventStore.find), which the in-page report checks the id with.
 */
import { describe, expect, it } from 'vitest';
import type { NotMeLinkRecord } from '../../src/storage/not-me-links.js';
import { freshId, insertUser, storageForFile } from '../support/storage.js';

const t = storageForFile();
const NOW = Date.UTC(2026, 0, 1);
const DAY = 24 * 60 * 60 * 1000;

function link(userId: string, overrides: Partial<NotMeLinkRecord> = {}): NotMeLinkRecord {
  return {
    tokenHash: freshId('h'),
    userId,
    method: 'googleAuth',
    instance: new Date(NOW).toISOString(),
    createdAt: NOW,
    expiresAt: NOW + DAY,
    ...overrides,
  };
}

describe('"This wasn\'t me" links', () => {
  it('finds a link until it expires, with its account, method and instance; never by another hash', async () => {
    const { id } = await insertUser(t.storage);
    const issued = link(id, { method: 'passkey', instance: freshId('pk') });
    await t.storage.notMeLinks.issue(issued);
    expect(await t.storage.notMeLinks.find(issued.tokenHash, NOW)).toEqual(issued);
    expect(await t.storage.notMeLinks.find(issued.tokenHash, NOW + DAY)).toBeUndefined();
    expect(await t.storage.notMeLinks.find(`${issued.tokenHash}x`, NOW)).toBeUndefined();
  });

  it('is taken once: the first take answers it, a second (or an expired one) answers nothing', async () => {
    const { id } = await insertUser(t.storage);
    const live = link(id);
    const expired = link(id, { expiresAt: NOW - 1 });
    await t.storage.notMeLinks.issue(live);
    await t.storage.notMeLinks.issue(expired);
    expect(await t.storage.notMeLinks.take(expired.tokenHash, NOW)).toBeUndefined();
    expect(await t.storage.notMeLinks.take(live.tokenHash, NOW)).toEqual(live);
    expect(await t.storage.notMeLinks.take(live.tokenHash, NOW)).toBeUndefined();
    expect(await t.storage.notMeLinks.find(live.tokenHash, NOW)).toBeUndefined();
  });

  it('two racing takes in their own transactions: exactly one gets the link', async () => {
    const { id } = await insertUser(t.storage);
    const issued = link(id);
    await t.storage.notMeLinks.issue(issued);
    const take = () => t.storage.transaction((tx) => tx.notMeLinks.take(issued.tokenHash, NOW));
    const answers = await Promise.all([take(), take(), take()]);
    expect(answers.filter((answer) => answer !== undefined)).toHaveLength(1);
  });

  it('a take rolled back with its transaction leaves the link usable', async () => {
    const { id } = await insertUser(t.storage);
    const issued = link(id);
    await t.storage.notMeLinks.issue(issued);
    await expect(
      t.storage.transaction(async (tx) => {
        expect(await tx.notMeLinks.take(issued.tokenHash, NOW)).toEqual(issued);
        throw new Error('a later step failed');
      }),
    ).rejects.toThrow('a later step failed');
    expect(await t.storage.notMeLinks.find(issued.tokenHash, NOW)).toEqual(issued);
  });

  it('prune deletes the expired links only', async () => {
    const { id } = await insertUser(t.storage);
    const live = link(id, { expiresAt: NOW + 10 * DAY });
    const expired = link(id, { expiresAt: NOW });
    await t.storage.notMeLinks.issue(live);
    await t.storage.notMeLinks.issue(expired);
    expect(await t.storage.notMeLinks.prune(NOW)).toBeGreaterThanOrEqual(1);
    expect(await t.storage.notMeLinks.find(live.tokenHash, NOW)).toEqual(live);
    expect(await t.storage.notMeLinks.take(expired.tokenHash, NOW - 1)).toBeUndefined();
  });
});

describe('one activity event', () => {
  it("finds the user's own event within the reach, never another account's by its id", async () => {
    const ada = await insertUser(t.storage);
    const bob = await insertUser(t.storage);
    const event = {
      userId: ada.id,
      kind: 'signed-in' as const,
      detail: 'password',
      at: NOW,
      browser: 'Firefox',
      os: 'Linux',
      deviceType: 'desktop' as const,
      country: null,
      address: '203.0.113.x',
    };
    const id = await t.storage.activity.append(event);
    expect(await t.storage.activity.find(ada.id, id, NOW - DAY)).toEqual({ ...event, id });
    expect(await t.storage.activity.find(bob.id, id, NOW - DAY)).toBeUndefined();
    expect(await t.storage.activity.find(ada.id, id, NOW + 1)).toBeUndefined();
    expect(await t.storage.activity.find(ada.id, 'AAAAAAAAAAAAAAAAAAAA', NOW - DAY)).toBeUndefined();
  });
});
