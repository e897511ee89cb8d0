/** Storage conformance (both engines): the key ring's rows, their material sealed at rest (KeyRingStore). */
import { describe, expect, it } from 'vitest';
import { KeyRingStore, type StoredKey } from '../../src/storage/key-ring.js';
import { freshId, storageForFile } from '../support/storage.js';

const t = storageForFile();
const NOW = Date.UTC(2026, 0, 1);

const key = (overrides: Partial<StoredKey> = {}): StoredKey => ({
  kid: freshId('kid'),
  purpose: 'cookie',
  material: `material-${freshId('m')}`,
  createdAt: NOW,
  signsFrom: NOW,
  signsUntil: null,
  retiredAt: null,
  ...overrides,
});

describe('the key ring', () => {
  it('keeps keys sealed, gives them back opened in signing order, succeeds and retires them', async () => {
    const store = new KeyRingStore(t.database, t.atRest.sealing.keyRing);
    const first = key({ purpose: 'signing' });
    const next = key({ purpose: 'signing', signsFrom: NOW + 1000, createdAt: NOW + 1 });
    await store.transaction(async (tx) => {
      await tx.insert(next);
      await tx.insert(first);
    });
    const mine = (keys: StoredKey[]) => keys.filter((k) => [first.kid, next.kid].includes(k.kid));
    expect(mine(await store.all())).toEqual([first, next]);
    const row = await t.storage.sql.get<{ material: string }>('SELECT material FROM key_ring WHERE kid = ?', [
      first.kid,
    ]);
    expect(row?.material).not.toBe(first.material);

    await store.succeed(first.kid, NOW + 1000, NOW + 5000);
    expect(mine(await store.all())[0]).toMatchObject({ signsUntil: NOW + 1000, retiredAt: NOW + 5000 });
    expect(await store.deleteRetired(NOW + 4999)).toBe(0);
    expect(await store.deleteRetired(NOW + 5000)).toBe(1);
    expect(mine(await store.all())).toEqual([next]);
  });

  it('refuses a second key with the same kid, and rolls back the transaction that tried', async () => {
    const store = new KeyRingStore(t.database, t.atRest.sealing.keyRing);
    const existing = key();
    await store.insert(existing);
    const other = key();
    await expect(
      store.transaction(async (tx) => {
        await tx.insert(other);
        await tx.insert({ ...existing, material: 'another' });
      }),
    ).rejects.toThrow();
    const kids = (await store.all()).map((k) => k.kid);
    expect(kids).toContain(existing.kid);
    expect(kids).not.toContain(other.kid);
  });
});
