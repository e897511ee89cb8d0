/**
 * Which storage a vitest project gives its tests (vitest.config.ts sets PORTAL_TEST_STORAGE): `none` in project
 * `unit`, whose files must build no app and no database; a file there that tries is told where it belongs.
 */
export type TestStorage = 'none' | 'sqlite' | 'postgres';

export function testStorage(): TestStorage {
  const value = process.env.PORTAL_TEST_STORAGE;
  return value === 'none' || value === 'postgres' ? value : 'sqlite';
}

/** Throws in project `unit`: `what` (an app, a database) needs storage. */
export function requireStorage(what: string): void {
  if (testStorage() !== 'none') return;
  throw new Error(
    `${what} needs storage, which project unit has none of: take this file out of UNIT_FILES (vitest.config.ts)`,
  );
}
