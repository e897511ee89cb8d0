/** The users (migration 001): the record shapes, the interface and its SQL (the Directory: directory/). */
import { isUniqueViolation, type Sql } from '../db/sql.js';

/** A person in the portal's user store. */
export interface User {
  id: string;
  email: string;
  givenName: string;
  familyName: string;
  /** Two-letter country code, upper case ('' when unknown). */
  country: string;
  isFederated: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface ProfileChanges {
  givenName?: string | undefined;
  familyName?: string | undefined;
  country?: string | undefined;
}

export class DuplicateEmailError extends Error {
  override readonly name = 'DuplicateEmailError';
  constructor(email: string) {
    super(`A user with the email ${email} already exists`);
  }
}

/**
 * The users (storage only: the Directory hashes passwords and normalises emails before they get here). Emails
 * arrive normalised. Writes are committed when a method's promise settles.
 */
export interface UserStore {
  /** Asked on every authenticated call. */
  findById(id: string): Promise<User | undefined>;
  findByEmail(email: string): Promise<User | undefined>;
  /** The user and their argon2id hash (null: no password here), for a sign-in. */
  credentialsByEmail(email: string): Promise<{ user: User; passwordHash: string | null } | undefined>;
  /** Throws DuplicateEmailError when the email is taken. */
  insert(
    user: Omit<User, 'createdAt' | 'updatedAt'>,
    passwordHash: string | null,
    now: string,
  ): Promise<void>;
  /** Applies the given changes; returns the stored user, or undefined when the id is unknown. */
  updateProfile(id: string, changes: ProfileChanges, now: string): Promise<User | undefined>;
  setPasswordHash(id: string, hash: string, now: string): Promise<void>;
  /** The stored hash: null for a user with no password here, undefined for an unknown id. */
  passwordHashOf(id: string): Promise<string | null | undefined>;
  /**
   * Stores `newHash` only if the stored hash is still `expectedHash` (compare-and-set). Run it inside the password
   * change's transaction. Returns whether the hash was replaced.
   */
  replacePasswordHash(id: string, expectedHash: string, newHash: string, now: string): Promise<boolean>;
}

/** A `users` row as stored. */
export interface UserRow {
  id: string;
  email: string;
  given_name: string;
  family_name: string;
  country: string;
  is_federated: number;
  password_hash: string | null;
  created_at: string;
  updated_at: string;
}

export function rowToUser(row: UserRow): User {
  return {
    id: row.id,
    email: row.email,
    givenName: row.given_name,
    familyName: row.family_name,
    country: row.country,
    isFederated: row.is_federated === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * The users (migration 001) over `Sql`: when a method's promise settles, its write is committed.
 */
export class SqlUserStore implements UserStore {
  constructor(private readonly sql: Sql) {}

  async findById(id: string): Promise<User | undefined> {
    const row = await this.sql.get<UserRow>('SELECT * FROM users WHERE id = ?', [id]);
    return row && rowToUser(row);
  }

  async findByEmail(email: string): Promise<User | undefined> {
    const row = await this.sql.get<UserRow>('SELECT * FROM users WHERE email = ?', [email]);
    return row && rowToUser(row);
  }

  async credentialsByEmail(email: string): Promise<{ user: User; passwordHash: string | null } | undefined> {
    const row = await this.sql.get<UserRow>('SELECT * FROM users WHERE email = ?', [email]);
    return row && { user: rowToUser(row), passwordHash: row.password_hash };
  }

  async insert(
    user: Omit<User, 'createdAt' | 'updatedAt'>,
    passwordHash: string | null,
    now: string,
  ): Promise<void> {
    try {
      await this.sql.run(
        `INSERT INTO users (id, email, given_name, family_name, country, is_federated, password_hash, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          user.id,
          user.email,
          user.givenName,
          user.familyName,
          user.country,
          user.isFederated ? 1 : 0,
          passwordHash,
          now,
          now,
        ],
      );
    } catch (error) {
      if (isUniqueViolation(error) && (await this.findByEmail(user.email))) {
        throw new DuplicateEmailError(user.email);
      }
      throw error;
    }
  }

  async updateProfile(id: string, changes: ProfileChanges, now: string): Promise<User | undefined> {
    const row = await this.sql.get<UserRow>(
      `UPDATE users SET
         given_name = coalesce(?, given_name),
         family_name = coalesce(?, family_name),
         country = coalesce(?, country),
         updated_at = ?
       WHERE id = ?
       RETURNING *`,
      [changes.givenName ?? null, changes.familyName ?? null, changes.country ?? null, now, id],
    );
    return row && rowToUser(row);
  }

  async setPasswordHash(id: string, hash: string, now: string): Promise<void> {
    await this.sql.run('UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?', [hash, now, id]);
  }

  async passwordHashOf(id: string): Promise<string | null | undefined> {
    const row = await this.sql.get<{ password_hash: string | null }>(
      'SELECT password_hash FROM users WHERE id = ?',
      [id],
    );
    return row?.password_hash;
  }

  async replacePasswordHash(
    id: string,
    expectedHash: string,
    newHash: string,
    now: string,
  ): Promise<boolean> {
    const { changes } = await this.sql.run(
      'UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ? AND password_hash = ?',
      [newHash, now, id, expectedHash],
    );
    return changes === 1;
  }
}
