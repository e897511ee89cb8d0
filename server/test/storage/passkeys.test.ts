/** Storage conformance (both engines): passkeys and WebAuthn challenges (PasskeyStore, WebAuthnChallengeStore, migration 015). */
import { describe, expect, it } from 'vitest';
import type { NewPasskey } from '../../src/storage/passkeys.js';
import { freshId, insertUser, storageForFile } from '../support/storage.js';

const t = storageForFile();
const NOW = Date.UTC(2026, 0, 1);

function passkey(userId: string, overrides: Partial<NewPasskey> = {}): NewPasskey {
  return {
    id: freshId('pk'),
    userId,
    credentialId: freshId('cred'),
    publicKey: 'pQECAyYgASFYIA',
    counter: 0,
    transports: ['internal', 'hybrid'],
    aaguid: '00000000-0000-0000-0000-000000000000',
    backedUp: true,
    deviceType: 'multiDevice',
    name: 'Chrome on Linux',
    createdAt: NOW,
    ...overrides,
  };
}

describe('passkeys', () => {
  it('stores, lists, finds by credential id, renames and removes, per user', async () => {
    const ada = await insertUser(t.storage);
    const bob = await insertUser(t.storage);
    const store = t.storage.passkeys;
    const first = passkey(ada.id);
    const second = passkey(ada.id, { createdAt: NOW + 1, backedUp: false, transports: [] });
    expect(await store.insert(first)).toBe(true);
    expect(await store.insert(second)).toBe(true);
    const listed = await store.list(ada.id);
    expect(listed.map((p) => p.id)).toEqual([first.id, second.id]);
    expect(listed[0]).toEqual({ ...first, lastUsedAt: null, clonedAt: null });
    expect(listed[1]?.transports).toEqual([]);
    expect(await store.countUsable(ada.id)).toBe(2);
    expect((await store.byCredentialId(first.credentialId))?.userId).toBe(ada.id);
    expect(await store.get(bob.id, first.id)).toBeUndefined();
    expect(await store.rename(bob.id, first.id, 'Mine')).toBe(false);
    expect(await store.rename(ada.id, first.id, 'Laptop')).toBe(true);
    expect((await store.get(ada.id, first.id))?.name).toBe('Laptop');
    expect(await store.remove(bob.id, first.id)).toBe(false);
    expect(await store.remove(ada.id, first.id)).toBe(true);
    expect(await store.remove(ada.id, first.id)).toBe(false);
    expect(await store.countUsable(ada.id)).toBe(1);
  });

  it('refuses a credential id registered already, to any account', async () => {
    const ada = await insertUser(t.storage);
    const bob = await insertUser(t.storage);
    const original = passkey(ada.id);
    expect(await t.storage.passkeys.insert(original)).toBe(true);
    expect(await t.storage.passkeys.insert(passkey(bob.id, { credentialId: original.credentialId }))).toBe(
      false,
    );
    expect(await t.storage.passkeys.insert(passkey(ada.id, { credentialId: original.credentialId }))).toBe(
      false,
    );
    expect(await t.storage.passkeys.list(bob.id)).toEqual([]);
  });

  it('records uses by compare-and-set on the counter; a cloned passkey counts no more and takes no use', async () => {
    const ada = await insertUser(t.storage);
    const store = t.storage.passkeys;
    const record = passkey(ada.id, { counter: 5 });
    await store.insert(record);
    expect(await store.recordUse(record.id, 4, 6, NOW + 1)).toBe(false);
    expect(await store.recordUse(record.id, 5, 6, NOW + 1)).toBe(true);
    const used = await store.get(ada.id, record.id);
    expect([used?.counter, used?.lastUsedAt]).toEqual([6, NOW + 1]);
    const racing = await Promise.all(
      Array.from({ length: 10 }, () => store.recordUse(record.id, 6, 7, NOW + 2)),
    );
    expect(racing.filter(Boolean)).toHaveLength(1);
    expect(await store.markCloned(record.id, NOW + 3)).toBe(true);
    expect(await store.markCloned(record.id, NOW + 4)).toBe(false);
    expect((await store.get(ada.id, record.id))?.clonedAt).toBe(NOW + 3);
    expect(await store.recordUse(record.id, 7, 8, NOW + 5)).toBe(false);
    expect(await store.countUsable(ada.id)).toBe(0);
    expect(await store.list(ada.id)).toHaveLength(1);
  });

  it('go with their user', async () => {
    const ada = await insertUser(t.storage);
    await t.storage.passkeys.insert(passkey(ada.id));
    await t.storage.sql.run('DELETE FROM users WHERE id = ?', [ada.id]);
    expect(await t.storage.passkeys.list(ada.id)).toEqual([]);
  });

  it('an insert in a transaction that rolls back leaves nothing', async () => {
    const ada = await insertUser(t.storage);
    await expect(
      t.storage.transaction(async (tx) => {
        await tx.passkeys.insert(passkey(ada.id));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await t.storage.passkeys.list(ada.id)).toEqual([]);
  });
});

describe('WebAuthn challenges', () => {
  const challenge = (overrides: Partial<{ userId: string | null; expiresAt: number }> = {}) => ({
    challengeHash: freshId('ch'),
    purpose: 'authentication' as const,
    userId: 'u1',
    binding: 'session-hash',
    expiresAt: NOW + 300_000,
    ...overrides,
  });

  it('is consumed once, for its purpose only', async () => {
    const store = t.storage.webauthnChallenges;
    const kept = challenge({ userId: null });
    await store.put(kept);
    expect(await store.consume(kept.challengeHash, 'registration')).toBeUndefined();
    expect(await store.consume(kept.challengeHash, 'authentication')).toEqual(kept);
    expect(await store.consume(kept.challengeHash, 'authentication')).toBeUndefined();
    expect(await store.consume('unknown', 'authentication')).toBeUndefined();
  });

  it('a burst of 20 parallel consumptions: exactly one gets it (also each in its own transaction)', async () => {
    const store = t.storage.webauthnChallenges;
    const a = challenge();
    await store.put(a);
    const plain = await Promise.all(
      Array.from({ length: 20 }, () => store.consume(a.challengeHash, 'authentication')),
    );
    expect(plain.filter(Boolean)).toHaveLength(1);
    const b = challenge();
    await store.put(b);
    const inTx = await Promise.all(
      Array.from({ length: 20 }, () =>
        t.storage.transaction((tx) => tx.webauthnChallenges.consume(b.challengeHash, 'authentication')),
      ),
    );
    expect(inTx.filter(Boolean)).toHaveLength(1);
  });

  it('prunes the expired ones', async () => {
    const store = t.storage.webauthnChallenges;
    const old = challenge({ expiresAt: NOW - 1 });
    const live = challenge({ expiresAt: NOW + 1 });
    await store.put(old);
    await store.put(live);
    expect(await store.prune(NOW)).toBeGreaterThanOrEqual(1);
    expect(await store.consume(old.challengeHash, 'authentication')).toBeUndefined();
    expect(await store.consume(live.challengeHash, 'authentication')).toBeDefined();
  });
});
