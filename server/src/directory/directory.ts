import { randomInt } from 'node:crypto';
import argon2 from 'argon2';
import type { ProfileChanges, User, UserStore } from './store.js';

export { DuplicateEmailError, type ProfileChanges, type User } from './store.js';

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

  constructor(private readonly store: UserStore) {}

  findById(id: string): Promise<User | undefined> {
    return this.store.findById(id);
  }

  findByEmail(email: string): Promise<User | undefined> {
    return this.store.findByEmail(normaliseEmail(email));
  }

  async createUser(input: NewUser): Promise<User> {
    const email = normaliseEmail(input.email);
    // Hash before the write so the insert itself stays short.
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
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
      this.dummyHash ??= hashPassword('not-a-real-password');
      await argon2.verify(await this.dummyHash, password);
      return undefined;
    }
    return (await argon2.verify(found.passwordHash, password)) ? found.user : undefined;
  }

  async setPassword(id: string, password: string): Promise<void> {
    const hash = await hashPassword(password);
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
