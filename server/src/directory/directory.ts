import { randomInt } from 'node:crypto';
import argon2 from 'argon2';
import type { ProfileChanges, User, UserStore } from '../storage/users.js';

export { DuplicateEmailError, type ProfileChanges, type User } from '../storage/users.js';

export interface NewUser {
  email: string;
  /** Omitted for a user with no password here (who cannot sign in with the embedded provider). */
  password?: string | undefined;
  givenName: string;
  familyName: string;
  country: string;
  isFederated?: boolean | undefined;
  /** Keep an id chosen elsewhere (an import); new ids are generated otherwise. */
  id?: string | undefined;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Okta-like user id: `00u` and 17 random base62 characters (about 101 bits). */
export function newUserId(): string {
  let id = '00u';
  for (let i = 0; i < 17; i += 1) id += BASE62[randomInt(BASE62.length)];
  return id;
}

/** argon2id's cost: memory (KiB), passes, lanes. */
export interface PasswordHashing {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

// OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane): about 30 ms here, so sign-in stays quick on 2 cores.
export const PRODUCTION_PASSWORD_HASHING: PasswordHashing = {
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

/** The argon2id hash of a password, with the directory's parameters (production's unless a test app chose). */
export function hashPassword(
  password: string,
  hashing: PasswordHashing = PRODUCTION_PASSWORD_HASHING,
): Promise<string> {
  return argon2.hash(password, { type: argon2.argon2id, ...hashing });
}

/** Whether the password matches the stored argon2 hash (the parameters are read from the hash). */
export function passwordMatches(hash: string, password: string): Promise<boolean> {
  return argon2.verify(hash, password);
}

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The user directory: accounts, profiles and passwords (argon2id), over a UserStore. Emails are normalised
 * here; the store only keeps what it is given.
 */
export class Directory {
  /** A hash to verify against when the email is unknown, so timing does not reveal which emails exist. */
  private dummyHash: Promise<string> | undefined;

  /** `hashing`: production's argon2id cost unless the app was built with another (tests: buildApp options). */
  constructor(
    private readonly store: UserStore,
    private readonly hashing: PasswordHashing = PRODUCTION_PASSWORD_HASHING,
  ) {}

  findById(id: string): Promise<User | undefined> {
    return this.store.findById(id);
  }

  findByEmail(email: string): Promise<User | undefined> {
    return this.store.findByEmail(normaliseEmail(email));
  }

  async createUser(input: NewUser): Promise<User> {
    const email = normaliseEmail(input.email);
    // Hash before the write so the insert itself stays short.
    const passwordHash =
      input.password === undefined ? null : await hashPassword(input.password, this.hashing);
    const id = input.id ?? newUserId();
    await this.store.insert(
      {
        id,
        email,
        givenName: input.givenName,
        familyName: input.familyName,
        country: input.country.toUpperCase(),
        isFederated: input.isFederated === true,
      },
      passwordHash,
      new Date().toISOString(),
    );
    const user = await this.store.findById(id);
    if (!user) throw new Error(`User ${id} vanished right after insert`);
    return user;
  }

  /** Returns the user when the email and password match, otherwise undefined (same cost either way). */
  async verifyPassword(email: string, password: string): Promise<User | undefined> {
    const found = await this.store.credentialsByEmail(normaliseEmail(email));
    if (!found || found.passwordHash === null) {
      this.dummyHash ??= hashPassword('not-a-real-password', this.hashing);
      await argon2.verify(await this.dummyHash, password);
      return undefined;
    }
    return (await argon2.verify(found.passwordHash, password)) ? found.user : undefined;
  }

  /** The argon2id hash of a password with the directory's cost, for a change stored later in a transaction. */
  hash(password: string): Promise<string> {
    return hashPassword(password, this.hashing);
  }

  async setPassword(id: string, password: string): Promise<void> {
    const hash = await hashPassword(password, this.hashing);
    await this.store.setPasswordHash(id, hash, new Date().toISOString());
  }

  /** The stored argon2id hash: null for a user with no password here, undefined for an unknown id. */
  passwordHashOf(id: string): Promise<string | null | undefined> {
    return this.store.passwordHashOf(id);
  }

  /** Applies the given changes and returns the stored user, or undefined when the id is unknown. */
  updateProfile(id: string, changes: ProfileChanges): Promise<User | undefined> {
    return this.store.updateProfile(
      id,
      { ...changes, country: changes.country?.toUpperCase() },
      new Date().toISOString(),
    );
  }
}
