import type { Db } from '../db/connection.js';

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
 * arrive normalised. Writes are committed when a method returns.
 */
export interface UserStore {
  /** Asked on every authenticated call. */
  findById(id: string): User | undefined;
  findByEmail(email: string): User | undefined;
  /** The user and their argon2id hash (null: no password here), for a sign-in. */
  credentialsByEmail(email: string): { user: User; passwordHash: string | null } | undefined;
  /** Throws DuplicateEmailError when the email is taken. */
  insert(user: Omit<User, 'createdAt' | 'updatedAt'>, passwordHash: string | null, now: string): void;
  /** Applies the given changes; returns the stored user, or undefined when the id is unknown. */
  updateProfile(id: string, changes: ProfileChanges, now: string): User | undefined;
  setPasswordHash(id: string, hash: string, now: string): void;
  /** The stored hash: null for a user with no password here, undefined for an unknown id. */
  passwordHashOf(id: string): string | null | undefined;
  /**
   * Stores `newHash` only if the stored hash is still `expectedHash` (compare-and-set). Synchronous: runs inside
   * the password change's transaction. Returns whether the hash was replaced.
   */
  replacePasswordHash(id: string, expectedHash: string, newHash: string, now: string): boolean;
}

interface UserRow {
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

function toUser(row: UserRow): User {
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
 * The users in SQLite (migration 001). Writes are synchronous better-sqlite3 statements: when a method returns,
 * the row is committed (and, with synchronous=FULL, on disk). Statements are prepared once.
 */
export class SqliteUserStore implements UserStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      byId: db.prepare<[string], UserRow>('SELECT * FROM users WHERE id = ?'),
      byEmail: db.prepare<[string], UserRow>('SELECT * FROM users WHERE email = ?'),
      insert: db.prepare(
        `INSERT INTO users (id, email, given_name, family_name, country, is_federated, password_hash, created_at, updated_at)
         VALUES (@id, @email, @given_name, @family_name, @country, @is_federated, @password_hash, @now, @now)`,
      ),
      update: db.prepare<
        {
          id: string;
          given_name: string | null;
          family_name: string | null;
          country: string | null;
          now: string;
        },
        UserRow
      >(
        `UPDATE users SET
           given_name = coalesce(@given_name, given_name),
           family_name = coalesce(@family_name, family_name),
           country = coalesce(@country, country),
           updated_at = @now
         WHERE id = @id
         RETURNING *`,
      ),
      setPassword: db.prepare('UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?'),
      passwordHash: db.prepare<[string], { password_hash: string | null }>(
        'SELECT password_hash FROM users WHERE id = ?',
      ),
      replacePasswordHash: db.prepare(
        'UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ? AND password_hash = ?',
      ),
    };
  }

  findById(id: string): User | undefined {
    const row = this.s.byId.get(id);
    return row && toUser(row);
  }

  findByEmail(email: string): User | undefined {
    const row = this.s.byEmail.get(email);
    return row && toUser(row);
  }

  credentialsByEmail(email: string): { user: User; passwordHash: string | null } | undefined {
    const row = this.s.byEmail.get(email);
    return row && { user: toUser(row), passwordHash: row.password_hash };
  }

  insert(user: Omit<User, 'createdAt' | 'updatedAt'>, passwordHash: string | null, now: string): void {
    try {
      this.s.insert.run({
        id: user.id,
        email: user.email,
        given_name: user.givenName,
        family_name: user.familyName,
        country: user.country,
        is_federated: user.isFederated ? 1 : 0,
        password_hash: passwordHash,
        now,
      });
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && this.findByEmail(user.email)) {
        throw new DuplicateEmailError(user.email);
      }
      throw error;
    }
  }

  updateProfile(id: string, changes: ProfileChanges, now: string): User | undefined {
    const row = this.s.update.get({
      id,
      given_name: changes.givenName ?? null,
      family_name: changes.familyName ?? null,
      country: changes.country ?? null,
      now,
    });
    return row && toUser(row);
  }

  setPasswordHash(id: string, hash: string, now: string): void {
    this.s.setPassword.run(hash, now, id);
  }

  passwordHashOf(id: string): string | null | undefined {
    return this.s.passwordHash.get(id)?.password_hash;
  }

  replacePasswordHash(id: string, expectedHash: string, newHash: string, now: string): boolean {
    return this.s.replacePasswordHash.run(newHash, now, id, expectedHash).changes === 1;
  }
}
