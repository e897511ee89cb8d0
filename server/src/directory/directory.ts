import { randomInt } from 'node:crypto';
import argon2 from 'argon2';
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

export interface NewUser {
  email: string;
  /** Omitted for users who sign in elsewhere (a real Okta org). */
  password?: string | undefined;
  givenName: string;
  familyName: string;
  country: string;
  isFederated?: boolean | undefined;
  /** Keep an id chosen elsewhere (Okta's `uid`); new ids are generated otherwise. */
  id?: string | undefined;
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

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Okta-like user id: `00u` and 17 random base62 characters (about 101 bits). */
export function newUserId(): string {
  let id = '00u';
  for (let i = 0; i < 17; i += 1) id += BASE62[randomInt(BASE62.length)];
  return id;
}

// OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane): about 30 ms here, so sign-in stays quick on 2 cores.
const HASH_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The argon2id hash of a password, with the directory's parameters. */
export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, HASH_OPTIONS);
}

/** Whether the password matches the stored argon2 hash (the parameters are read from the hash). */
export function passwordMatches(hash: string, password: string): Promise<boolean> {
  return argon2.verify(hash, password);
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

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The user store. Writes are synchronous better-sqlite3 statements: when a method returns, the row is
 * committed (and, with synchronous=FULL, on disk).
 */
export class Directory {
  private readonly statements;
  /** A hash to verify against when the email is unknown, so timing does not reveal which emails exist. */
  private dummyHash: Promise<string> | undefined;

  constructor(private readonly db: Db) {
    // Prepared once and reused for every call.
    this.statements = {
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
    const row = this.statements.byId.get(id);
    return row && toUser(row);
  }

  findByEmail(email: string): User | undefined {
    const row = this.statements.byEmail.get(normaliseEmail(email));
    return row && toUser(row);
  }

  async createUser(input: NewUser): Promise<User> {
    const email = normaliseEmail(input.email);
    // Hash before the write so the insert itself stays a short synchronous transaction.
    const passwordHash =
      input.password === undefined ? null : await argon2.hash(input.password, HASH_OPTIONS);
    const id = input.id ?? newUserId();
    try {
      this.statements.insert.run({
        id,
        email,
        given_name: input.givenName,
        family_name: input.familyName,
        country: input.country.toUpperCase(),
        is_federated: input.isFederated ? 1 : 0,
        password_hash: passwordHash,
        now: new Date().toISOString(),
      });
    } catch (error) {
      if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && this.findByEmail(email)) {
        throw new DuplicateEmailError(email);
      }
      throw error;
    }
    const user = this.findById(id);
    if (!user) throw new Error(`User ${id} vanished right after insert`);
    return user;
  }

  /** Returns the user when the email and password match, otherwise undefined (same cost either way). */
  async verifyPassword(email: string, password: string): Promise<User | undefined> {
    const row = this.statements.byEmail.get(normaliseEmail(email));
    if (!row || row.password_hash === null) {
      this.dummyHash ??= argon2.hash('not-a-real-password', HASH_OPTIONS);
      await argon2.verify(await this.dummyHash, password);
      return undefined;
    }
    return (await argon2.verify(row.password_hash, password)) ? toUser(row) : undefined;
  }

  async setPassword(id: string, password: string): Promise<void> {
    const hash = await argon2.hash(password, HASH_OPTIONS);
    this.statements.setPassword.run(hash, new Date().toISOString(), id);
  }

  /** The stored argon2id hash: null for a user with no password here, undefined for an unknown id. */
  passwordHashOf(id: string): string | null | undefined {
    return this.statements.passwordHash.get(id)?.password_hash;
  }

  /**
   * Stores `newHash` only if the stored hash is still `expectedHash` (compare-and-set), so two concurrent
   * password changes verified against the same old password cannot both win. Synchronous: call it inside
   * the caller's transaction. Returns whether the hash was replaced.
   */
  replacePasswordHash(id: string, expectedHash: string, newHash: string): boolean {
    return (
      this.statements.replacePasswordHash.run(newHash, new Date().toISOString(), id, expectedHash).changes ===
      1
    );
  }

  /** Applies the given changes and returns the stored user, or undefined when the id is unknown. */
  updateProfile(id: string, changes: ProfileChanges): User | undefined {
    const row = this.statements.update.get({
      id,
      given_name: changes.givenName ?? null,
      family_name: changes.familyName ?? null,
      country: changes.country?.toUpperCase() ?? null,
      now: new Date().toISOString(),
    });
    return row && toUser(row);
  }
}
