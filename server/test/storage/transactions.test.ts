/**
 * Storage conformance (both engines): `Storage.transaction` (what commits together, what a throw rolls back), the
 * write transactions of two connections on one database, and the small stores (meta, tokens' "not before").
 */
import { describe, expect, it } from 'vitest';
import { metaEntries } from '../../src/storage/meta.js';
import { freshId, insertUser, storageForFile } from '../support/storage.js';

const t = storageForFile();
const NOW = Date.UTC(2026, 0, 1);

describe('transactions', () => {
  it('commits every store’s writes together', async () => {
    const user = await t.storage.transaction(async (tx) => {
      const inserted = await insertUser(tx);
      await tx.factors.putPending(inserted.id, 'email', null, NOW);
      await tx.outbox.add({ userId: inserted.id, to: inserted.email, subject: 'tx', text: '' }, NOW);
      return inserted;
    });
    expect(await t.storage.users.findById(user.id)).toEqual(user);
    expect(await t.storage.factors.factor(user.id, 'email')).toBeDefined();
    expect(await t.storage.outbox.addedSince(user.id, 'tx', NOW)).toBe(true);
  });

  it('rolls every write back when the work throws', async () => {
    const id = freshId();
    await expect(
      t.storage.transaction(async (tx) => {
        await insertUser(tx, { id });
        await tx.throttles.signIn.reserve(`email:${id}`, NOW, 0, 5);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await t.storage.users.findById(id)).toBeUndefined();
    expect(await t.storage.throttles.signIn.since(`email:${id}`, 0)).toEqual([]);
  });

  it('runs write transactions one at a time: parallel read-then-write steps lose no update', async () => {
    const { id } = await insertUser(t.storage);
    const step = (n: number) =>
      t.storage.transaction(async (tx) => {
        const times = await tx.throttles.passwordChange.since(id, 0);
        if (times.length < 5) await tx.throttles.passwordChange.reserve(id, NOW + n, 0, 100);
      });
    await Promise.all(Array.from({ length: 8 }, (_, n) => step(n)));
    expect(await t.storage.throttles.passwordChange.since(id, 0)).toHaveLength(5);
  });
});

describe('small stores', () => {
  it('meta: writes a value once, the first one stays', async () => {
    const meta = metaEntries(t.storage.sql);
    const key = freshId('meta');
    expect(await meta.has(key)).toBe(false);
    await meta.putIfAbsent(key, 'first');
    await meta.putIfAbsent(key, 'second');
    expect(await meta.has(key)).toBe(true);
    const row = await t.storage.sql.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [key]);
    expect(row?.value).toBe('first');
  });

  it("tokens' not-before: a later change wins, an earlier one leaves it", async () => {
    const store = t.storage.tokenNotBefore;
    const account = freshId();
    expect(await store.get(account)).toBeUndefined();
    await store.set(account, NOW, 'jti-1');
    expect(await store.get(account)).toEqual({ notBefore: NOW / 1000, exceptJti: 'jti-1' });
    await store.set(account, NOW - 60_000, 'jti-0');
    expect(await store.get(account)).toEqual({ notBefore: NOW / 1000, exceptJti: 'jti-1' });
    await store.set(account, NOW + 60_000, undefined);
    expect(await store.get(account)).toEqual({ notBefore: NOW / 1000 + 60, exceptJti: null });
  });
});
