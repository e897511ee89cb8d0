/**
 * A PostgreSQL transaction's held writes (Sql.deferWrite, db/postgres-deferred-writes.ts): they ride with the next
 * statement or go before COMMIT, and the transaction behaves as if each had run at once: later statements see
 * them, writes of one table keep their order, a failing one rolls the whole transaction back, and outside a
 * transaction `writeLater` runs at once. And `afterWrites` (a notice claim's way) waits for the transaction in flight.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../src/db/postgres.js';
import { writeLater, type Database } from '../src/db/sql.js';
import { createTestDatabase, type TestDatabase } from './support/postgres.js';

const OPTIONS = { poolMax: 4, connectTimeoutMs: 2000, statementTimeoutMs: 5000 };

describe('held writes of a PostgreSQL transaction', () => {
  let database: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openPostgres({ url: database.url, ...OPTIONS });
    await db.run('CREATE TABLE held_a (id BIGINT PRIMARY KEY, label TEXT NOT NULL)');
    await db.run('CREATE TABLE held_b (id BIGINT PRIMARY KEY, label TEXT NOT NULL)');
  });
  afterAll(async () => {
    await db?.close();
    await database?.drop();
  });

  const labels = async (table: 'held_a' | 'held_b') =>
    (await db.all<{ label: string }>(`SELECT label FROM ${table} ORDER BY id`)).map((row) => row.label);

  it('are offered in a transaction only, and outside one writeLater runs at once', async () => {
    expect(db.deferWrite).toBeUndefined();
    await writeLater(db, 'INSERT INTO held_a (id, label) VALUES (?, ?)', [1, 'now']);
    expect(await labels('held_a')).toEqual(['now']);
    await db.transaction(async (tx) => {
      expect(tx.deferWrite).toBeTypeOf('function');
    });
    await db.run('DELETE FROM held_a');
  });

  it('are seen by the statements that follow them in the transaction, and committed with it', async () => {
    const seen = await db.transaction(async (tx) => {
      await writeLater(tx, 'INSERT INTO held_a (id, label) VALUES (?, ?)', [1, 'one']);
      await writeLater(tx, 'INSERT INTO held_b (id, label) VALUES (?, ?)', [1, 'uno']);
      // Names held_a: the held writes go first, then this read sees them.
      const a = await tx.all<{ label: string }>('SELECT label FROM held_a');
      await writeLater(tx, 'INSERT INTO held_b (id, label) VALUES (?, ?)', [2, 'dos']);
      // Names held_b: the held insert goes first, and the count includes it.
      const b = await tx.get<{ n: number }>('SELECT count(*) AS n FROM held_b');
      return { a: a.map((row) => row.label), b: b?.n };
    });
    expect(seen).toEqual({ a: ['one'], b: 2 });
    expect(await labels('held_a')).toEqual(['one']);
    expect(await labels('held_b')).toEqual(['uno', 'dos']);
    await db.run('DELETE FROM held_a');
    await db.run('DELETE FROM held_b');
  });

  it('keep their order within one table (a delete, then an insert of the same key)', async () => {
    await db.run('INSERT INTO held_a (id, label) VALUES (1, ?)', ['old']);
    await db.transaction(async (tx) => {
      await writeLater(tx, 'DELETE FROM held_a WHERE id = ?', [1]);
      await writeLater(tx, 'INSERT INTO held_a (id, label) VALUES (?, ?)', [1, 'new']);
      await writeLater(tx, 'UPDATE held_a SET label = label || ? WHERE id = ?', ['!', 1]);
    });
    expect(await labels('held_a')).toEqual(['new!']);
    await db.run('DELETE FROM held_a');
  });

  it('ride in a write of another table, whose count is its own', async () => {
    await db.run('INSERT INTO held_b (id, label) VALUES (1, ?), (2, ?)', ['x', 'y']);
    const changed = await db.transaction(async (tx) => {
      await writeLater(tx, 'INSERT INTO held_a (id, label) VALUES (?, ?)', [7, 'seven']);
      return (await tx.run('UPDATE held_b SET label = ?', ['z'])).changes;
    });
    expect(changed).toBe(2);
    expect(await labels('held_a')).toEqual(['seven']);
    expect(await labels('held_b')).toEqual(['z', 'z']);
    await db.run('DELETE FROM held_a');
    await db.run('DELETE FROM held_b');
  });

  it('afterWrites runs once the transaction in flight has committed, and sees what it wrote', async () => {
    let finish = () => undefined as void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const writing = db.transaction(async (tx) => {
      await tx.run('INSERT INTO held_a (id, label) VALUES (?, ?)', [9, 'committed first']);
      await held;
    });
    const reading = db.afterWrites?.((sql) => sql.all<{ label: string }>('SELECT label FROM held_a'));
    finish();
    await writing;
    expect((await reading)?.map((row) => row.label)).toEqual(['committed first']);
    await db.run('DELETE FROM held_a');
  });

  it('roll the whole transaction back when one fails, at whichever statement it rode with', async () => {
    await db.run('INSERT INTO held_a (id, label) VALUES (1, ?)', ['taken']);
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO held_b (id, label) VALUES (?, ?)', [1, 'before']);
        // A duplicate key: fails where it is sent (here, before COMMIT).
        await writeLater(tx, 'INSERT INTO held_a (id, label) VALUES (?, ?)', [1, 'duplicate']);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await labels('held_b')).toEqual([]);
    expect(await labels('held_a')).toEqual(['taken']);
    await db.run('DELETE FROM held_a');
  });
});
