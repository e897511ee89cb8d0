/** Storage conformance (both engines): step-up grants and their keys (GrantStore). */
import { describe, expect, it } from 'vitest';
import { carriedGrantKey, chainGrantKey, sessionGrantKey } from '../../src/storage/grants.js';
import { freshId, insertUser, storageForFile } from '../support/storage.js';

const t = storageForFile();
const NOW = Date.UTC(2026, 0, 1);

describe('step-up grants', () => {
  it('tells a factor grant from a password grant, each until it expires', async () => {
    const { id } = await insertUser(t.storage);
    const grants = t.storage.grants;
    const factorKey = sessionGrantKey(freshId('s'));
    const passwordKey = sessionGrantKey(freshId('s'));
    await grants.put(id, factorKey, 'googleAuth', NOW + 1000);
    await grants.put(id, passwordKey, 'password', NOW + 2000);
    expect(await grants.factorGrantExpiry(id, factorKey, NOW)).toBe(NOW + 1000);
    expect(await grants.passwordGrantExpiry(id, factorKey, NOW)).toBeUndefined();
    expect(await grants.passwordGrantExpiry(id, passwordKey, NOW)).toBe(NOW + 2000);
    expect(await grants.factorGrantExpiry(id, passwordKey, NOW)).toBeUndefined();
    expect(await grants.factorGrantExpiry(id, factorKey, NOW + 1000)).toBeUndefined();
    // A later proof replaces the session's grant.
    await grants.put(id, factorKey, 'email', NOW + 5000);
    expect(await grants.factorGrantExpiry(id, factorKey, NOW + 1000)).toBe(NOW + 5000);
  });

  it("ends a session's grants: its own key and every chain under it, not another session's", async () => {
    const { id } = await insertUser(t.storage);
    const grants = t.storage.grants;
    const session = freshId('s');
    const other = freshId('s');
    await grants.put(id, sessionGrantKey(session), 'email', NOW + 1000);
    await grants.put(id, chainGrantKey(session, 'g1'), 'email', NOW + 1000);
    await grants.put(id, chainGrantKey(other, 'g2'), 'email', NOW + 1000);
    expect(await grants.deleteOf(id, [sessionGrantKey(session)])).toBe(2);
    expect(await grants.factorGrantExpiry(id, chainGrantKey(other, 'g2'), NOW)).toBe(NOW + 1000);
    expect(await grants.deleteKeys(id, [])).toBe(0);
    expect(await grants.deleteKeys(id, [chainGrantKey(other, 'g2'), 'no-such-key'])).toBe(1);
  });

  it("ends every other grant of the account, carrying the caller's to its session's next chain", async () => {
    const { id } = await insertUser(t.storage);
    const grants = t.storage.grants;
    const session = freshId('s');
    const keep = chainGrantKey(session, 'g1');
    await grants.put(id, keep, 'googleAuth', NOW + 1000);
    await grants.put(id, chainGrantKey(freshId('s'), 'g2'), 'email', NOW + 1000);
    await grants.put(id, sessionGrantKey(freshId('s')), 'email', NOW + 1000);
    expect(await grants.endAllCarrying(id, keep, carriedGrantKey(session))).toBe(2);
    expect(await grants.factorGrantExpiry(id, keep, NOW)).toBeUndefined();
    expect(await grants.factorGrantExpiry(id, carriedGrantKey(session), NOW)).toBe(NOW + 1000);
    await grants.claimCarried(id, carriedGrantKey(session), chainGrantKey(session, 'g3'));
    expect(await grants.factorGrantExpiry(id, chainGrantKey(session, 'g3'), NOW)).toBe(NOW + 1000);
    // Without a carry key, the kept grant stays where it is.
    expect(await grants.endAllCarrying(id, chainGrantKey(session, 'g3'), undefined)).toBe(0);
    expect(await grants.factorGrantExpiry(id, chainGrantKey(session, 'g3'), NOW)).toBe(NOW + 1000);
  });

  it('prunes the expired grants only', async () => {
    const { id } = await insertUser(t.storage);
    const grants = t.storage.grants;
    const old = sessionGrantKey(freshId('s'));
    const live = sessionGrantKey(freshId('s'));
    await grants.put(id, old, 'email', NOW - 1);
    await grants.put(id, live, 'email', NOW + 1000);
    expect(await grants.prune(NOW)).toBeGreaterThanOrEqual(1);
    expect(await grants.factorGrantExpiry(id, live, NOW)).toBe(NOW + 1000);
    expect(await grants.deleteKeys(id, [old])).toBe(0);
  });
});
