/**
 * The storage conformance suite's fixture (test/storage/**): a `Storage` opened the way the server opens it
 * (plugins/app/open-storage.ts: migrated, its at-rest key loaded) on this vitest project's engine: a SQLite file
 * in a temp folder, or a clone of the run's PostgreSQL template. One per test file; tests use fresh ids.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll } from 'vitest';
import { openStorage, type OpenedStorage } from '../../src/plugins/app/open-storage.js';
import type { Storage } from '../../src/storage/index.js';
import type { User } from '../../src/storage/users.js';
import { tempDir } from '../helpers.js';
import { createTestDatabase, isPostgresProject } from './postgres.js';
import { requireStorage } from './storage-kind.js';

/** The at-rest key of the suite's storages (KEY_RING_ENCRYPTION_KEY). */
export const CONFORMANCE_AT_REST_KEY = Buffer.alloc(32, 0x7a);

export interface TestStorage extends OpenedStorage {
  engine: 'sqlite' | 'postgres';
  dataDir: string;
  /** The PostgreSQL database's URL (a second connection, as another instance has). */
  url: string | undefined;
}

/** Opens a fresh storage of this project's engine; `close` also removes its folder or drops its database. */
export async function openTestStorage(): Promise<TestStorage> {
  requireStorage('the storage conformance suite');
  const dataDir = tempDir();
  const database = isPostgresProject() ? await createTestDatabase() : undefined;
  const opened = await openStorage({
    DATA_DIR: dataDir,
    DATABASE_URL: database?.url,
    DATABASE_POOL_MAX: 4,
    DATABASE_CONNECT_TIMEOUT_MS: 5000,
    DATABASE_STATEMENT_TIMEOUT_MS: 10_000,
    KEY_RING_ENCRYPTION_KEY: CONFORMANCE_AT_REST_KEY,
  });
  return {
    ...opened,
    engine: database ? 'postgres' : 'sqlite',
    dataDir,
    url: database?.url,
    async close() {
      await opened.close();
      await database?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Call at a test file's top level: one storage for the file, opened before its first test, closed after. */
export function storageForFile(): TestStorage {
  const t = {} as TestStorage;
  beforeAll(async () => {
    Object.assign(t, await openTestStorage());
  });
  afterAll(async () => t.close());
  return t;
}

/** A fresh id (users, sessions, grants): tests of one file share its storage. */
export const freshId = (prefix = '00u') => `${prefix}${randomBytes(8).toString('hex')}`;

/** Inserts a user (the rows of most stores belong to one) and returns it as stored. */
export async function insertUser(
  storage: Storage,
  overrides: Partial<Omit<User, 'createdAt' | 'updatedAt'>> = {},
  passwordHash: string | null = 'hash-1',
): Promise<User> {
  const id = overrides.id ?? freshId();
  await storage.users.insert(
    {
      id,
      email: `${id.toLowerCase()}@example.org`,
      givenName: 'Ada',
      familyName: 'Lovelace',
      country: 'GB',
      isFederated: false,
      ...overrides,
    },
    passwordHash,
    '2026-01-01T00:00:00.000Z',
  );
  const user = await storage.users.findById(id);
  if (!user) throw new Error(`user ${id} not found right after insert`);
  return user;
}
