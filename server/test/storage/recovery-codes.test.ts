/** Storage conformance (both engines): recovery codes (RecoveryCodeStore, migration 013). */
import { describe, expect, it } from 'vitest';
import { freshId, insertUser, storageForFile } from '../support/storage.js';

const t = storageForFile();
const NOW = Date.UTC(2026, 0, 1);
const hashes = (prefix: string, n = 10) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

describe('recovery codes', () => {
  it('counts nothing for a user without a set', async () => {
    const { id } = await insertUser(t.storage);
    expect(await t.storage.recoveryCodes.set(id)).toEqual({ total: 0, left: 0, generatedAt: undefined });
    expect(await t.storage.recoveryCodes.use(id, 'nothing', NOW)).toBe(false);
    expect(await t.storage.recoveryCodes.deleteAll(freshId())).toBe(0);
  });

  it('keeps a set, uses each code once, and counts what is left', async () => {
    const { id } = await insertUser(t.storage);
    const codes = t.storage.recoveryCodes;
    await codes.replace(id, hashes('a'), NOW);
    expect(await codes.set(id)).toEqual({ total: 10, left: 10, generatedAt: NOW });
    expect(await codes.use(id, 'a-3', NOW + 1)).toBe(true);
    expect(await codes.use(id, 'a-3', NOW + 2)).toBe(false);
    expect(await codes.use(id, 'not-a-code', NOW + 2)).toBe(false);
    expect(await codes.set(id)).toEqual({ total: 10, left: 9, generatedAt: NOW });
  });

  it("a new set voids the old one, and one user's code is no other user's", async () => {
    const ada = await insertUser(t.storage);
    const bob = await insertUser(t.storage);
    const codes = t.storage.recoveryCodes;
    await codes.replace(ada.id, hashes('old'), NOW);
    await codes.replace(bob.id, hashes('bob'), NOW);
    await codes.use(ada.id, 'old-0', NOW + 1);
    await codes.replace(ada.id, hashes('new'), NOW + 5);
    expect(await codes.set(ada.id)).toEqual({ total: 10, left: 10, generatedAt: NOW + 5 });
    expect(await codes.use(ada.id, 'old-1', NOW + 6)).toBe(false);
    expect(await codes.use(ada.id, 'bob-1', NOW + 6)).toBe(false);
    expect(await codes.use(ada.id, 'new-1', NOW + 6)).toBe(true);
    expect((await codes.set(bob.id)).left).toBe(10);
  });

  it('replaces inside a transaction that rolls back: the old set stays', async () => {
    const { id } = await insertUser(t.storage);
    await t.storage.recoveryCodes.replace(id, hashes('kept'), NOW);
    await expect(
      t.storage.transaction(async (tx) => {
        await tx.recoveryCodes.replace(id, hashes('lost'), NOW + 1);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await t.storage.recoveryCodes.set(id)).toEqual({ total: 10, left: 10, generatedAt: NOW });
    expect(await t.storage.recoveryCodes.use(id, 'kept-0', NOW + 2)).toBe(true);
  });

  it('a burst of 20 parallel uses of one code: exactly one succeeds', async () => {
    const { id } = await insertUser(t.storage);
    await t.storage.recoveryCodes.replace(id, hashes('burst'), NOW);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.storage.recoveryCodes.use(id, 'burst-7', NOW + i)),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await t.storage.recoveryCodes.set(id)).left).toBe(9);
  });

  it('the same burst, each use in its own write transaction: exactly one succeeds', async () => {
    const { id } = await insertUser(t.storage);
    await t.storage.recoveryCodes.replace(id, hashes('tx'), NOW);
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.storage.transaction((tx) => tx.recoveryCodes.use(id, 'tx-2', NOW + 1)),
      ),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('deletes a set, and goes with its user', async () => {
    const ada = await insertUser(t.storage);
    const bob = await insertUser(t.storage);
    await t.storage.recoveryCodes.replace(ada.id, hashes('x'), NOW);
    await t.storage.recoveryCodes.replace(bob.id, hashes('y'), NOW);
    expect(await t.storage.recoveryCodes.deleteAll(ada.id)).toBe(10);
    expect((await t.storage.recoveryCodes.set(ada.id)).total).toBe(0);
    await t.storage.sql.run('DELETE FROM users WHERE id = ?', [bob.id]);
    expect((await t.storage.recoveryCodes.set(bob.id)).total).toBe(0);
  });
});
