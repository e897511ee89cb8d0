/**
 * The SQLite file itself (from directory.test.ts): its pragmas and its schema version. PostgreSQL's migrations and
 * their version check are tested in postgres-migrations.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.js';
import { sqliteMigrations as migrations } from '../../src/db/migrations.js';
import { dataDirsPerTest } from '../helpers.js';

const dataDir = dataDirsPerTest();
const opened: { close(): unknown }[] = [];
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
});

describe('SQLite database', () => {
  it('runs the migrations once, records the version, and uses WAL with foreign keys', () => {
    const dir = dataDir();
    const db = openDatabase(dir);
    expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    db.close();
    const again = openDatabase(dir);
    opened.push(again);
    expect(again.pragma('user_version', { simple: true })).toBe(migrations.length);
  });

  it('refuses a database newer than the code', () => {
    const dir = dataDir();
    const db = openDatabase(dir);
    db.pragma(`user_version = ${migrations.length + 1}`);
    db.close();
    expect(() => openDatabase(dir)).toThrow(/newer than this server knows/);
  });
});
