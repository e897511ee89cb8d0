/**
 * Storage conformance (both engines): the account's preferred 2-step method (PreferredMethodStore, migration 019).
 * One row per account, a later choice replaces it, clearing forgets only the method named, and the table refuses a
 * method the contract does not know.
 */
import { describe, expect, it } from 'vitest';
import { freshId, storageForFile } from '../support/storage.js';

const t = storageForFile();

describe('PreferredMethodStore', () => {
  it('keeps one choice per account; a later one replaces it', async () => {
    const ada = freshId();
    const bob = freshId();
    expect(await t.storage.preferredMethods.get(ada)).toBeUndefined();
    await t.storage.preferredMethods.set(ada, 'email', 1000);
    await t.storage.preferredMethods.set(bob, 'passkey', 1000);
    await t.storage.preferredMethods.set(ada, 'googleAuth', 2000);
    expect(await t.storage.preferredMethods.get(ada)).toBe('googleAuth');
    expect(await t.storage.preferredMethods.get(bob)).toBe('passkey');
    const rows = await t.storage.sql.all<{ chosen_at: number }>(
      'SELECT chosen_at FROM account_preferred_methods WHERE account_id = ?',
      [ada],
    );
    expect(rows.map((row) => Number(row.chosen_at))).toEqual([2000]);
  });

  it('clears only when the method named is the choice, and says whether it did', async () => {
    const ada = freshId();
    await t.storage.preferredMethods.set(ada, 'email', 1000);
    expect(await t.storage.preferredMethods.clear(ada, 'googleAuth')).toBe(false);
    expect(await t.storage.preferredMethods.get(ada)).toBe('email');
    expect(await t.storage.preferredMethods.clear(ada, 'email')).toBe(true);
    expect(await t.storage.preferredMethods.get(ada)).toBeUndefined();
    expect(await t.storage.preferredMethods.clear(ada, 'email')).toBe(false);
  });

  it('is written in a transaction with the change that clears it, and rolled back with it', async () => {
    const ada = freshId();
    await t.storage.preferredMethods.set(ada, 'passkey', 1000);
    await expect(
      t.storage.transaction(async (tx) => {
        await tx.preferredMethods.clear(ada, 'passkey');
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await t.storage.preferredMethods.get(ada)).toBe('passkey');
  });

  it('refuses a method the contract does not know (the CHECK constraint)', async () => {
    await expect(
      t.storage.sql.run(
        'INSERT INTO account_preferred_methods (account_id, method, chosen_at) VALUES (?, ?, ?)',
        [freshId(), 'sms', 1000],
      ),
    ).rejects.toThrow();
  });
});
