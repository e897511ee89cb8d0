/** Storage conformance (both engines): the user directory's rows (UserStore). */
import { describe, expect, it } from 'vitest';
import { DuplicateEmailError } from '../../src/storage/users.js';
import { freshId, insertUser, storageForFile } from '../support/storage.js';

const t = storageForFile();

describe('users', () => {
  it('keeps what it was given and finds it by id and by email', async () => {
    const user = await insertUser(t.storage, { country: 'DE', isFederated: true });
    expect(user).toMatchObject({
      country: 'DE',
      isFederated: true,
      givenName: 'Ada',
      familyName: 'Lovelace',
    });
    expect(user.createdAt).toBe(user.updatedAt);
    expect(await t.storage.users.findByEmail(user.email)).toEqual(user);
    expect(await t.storage.users.findById(freshId())).toBeUndefined();
    expect(await t.storage.users.findByEmail('nobody@example.org')).toBeUndefined();
  });

  it('refuses a second account with the same email', async () => {
    const user = await insertUser(t.storage);
    await expect(insertUser(t.storage, { email: user.email })).rejects.toBeInstanceOf(DuplicateEmailError);
  });

  it('gives the credentials by email: the user and its hash, null for none', async () => {
    const withPassword = await insertUser(t.storage, {}, 'hash-a');
    const without = await insertUser(t.storage, {}, null);
    expect(await t.storage.users.credentialsByEmail(withPassword.email)).toEqual({
      user: withPassword,
      passwordHash: 'hash-a',
    });
    expect((await t.storage.users.credentialsByEmail(without.email))?.passwordHash).toBeNull();
    expect(await t.storage.users.credentialsByEmail('nobody@example.org')).toBeUndefined();
  });

  it('updates only the fields given, and says when the id is unknown', async () => {
    const user = await insertUser(t.storage);
    const later = '2026-02-01T00:00:00.000Z';
    const updated = await t.storage.users.updateProfile(user.id, { familyName: 'Byron' }, later);
    expect(updated).toMatchObject({ givenName: 'Ada', familyName: 'Byron', country: 'GB', updatedAt: later });
    expect(await t.storage.users.updateProfile(freshId(), { givenName: 'X' }, later)).toBeUndefined();
  });

  it('sets and swaps the password hash (the swap only from the expected hash)', async () => {
    const user = await insertUser(t.storage, {}, 'hash-1');
    const now = '2026-03-01T00:00:00.000Z';
    await t.storage.users.setPasswordHash(user.id, 'hash-2', now);
    expect(await t.storage.users.passwordHashOf(user.id)).toBe('hash-2');
    expect(await t.storage.users.replacePasswordHash(user.id, 'hash-1', 'hash-3', now)).toBe(false);
    expect(await t.storage.users.replacePasswordHash(user.id, 'hash-2', 'hash-3', now)).toBe(true);
    expect(await t.storage.users.passwordHashOf(user.id)).toBe('hash-3');
    expect(await t.storage.users.passwordHashOf(freshId())).toBeUndefined();
    const none = await insertUser(t.storage, {}, null);
    expect(await t.storage.users.passwordHashOf(none.id)).toBeNull();
  });
});
