import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storageUnavailableReason } from '../src/db/errors.js';
import { openPostgres, type PostgresOptions } from '../src/db/postgres.js';
import { toPostgresPlaceholders } from '../src/db/postgres-placeholders.js';
import { WRITE_LOCK_KEY } from '../src/db/postgres-write-gate.js';
import type { Database } from '../src/db/sql.js';
import { createTestDatabase, type TestDatabase } from './support/postgres.js';

const OPTIONS = { poolMax: 4, connectTimeoutMs: 2000, statementTimeoutMs: 5000 };

/** Resolves once `check` holds, polling the database (no fixed sleep); fails after `timeoutMs`. */
async function until(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A promise and its resolver: a gate a transaction waits at. */
function gate(): { opened: Promise<void>; open(): void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('? placeholders', () => {
  it('become $1..$n in order', () => {
    expect(toPostgresPlaceholders('SELECT * FROM t WHERE a = ? AND b IN (?, ?)')).toBe(
      'SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)',
    );
    expect(toPostgresPlaceholders('SELECT 1')).toBe('SELECT 1');
  });

  it('are left alone inside literals, quoted names, dollar quotes and comments', () => {
    const cases: [string, string][] = [
      [`SELECT '?', ? FROM t`, `SELECT '?', $1 FROM t`],
      [`SELECT 'it''s ?', ?`, `SELECT 'it''s ?', $1`],
      [`SELECT E'\\' ?', ?`, `SELECT E'\\' ?', $1`],
      [`SELECT "a?b" FROM t WHERE x = ?`, `SELECT "a?b" FROM t WHERE x = $1`],
      [`SELECT $$ ? $$, $tag$ '?' $tag$, ?`, `SELECT $$ ? $$, $tag$ '?' $tag$, $1`],
      [`SELECT ? -- why?\n, ?`, `SELECT $1 -- why?\n, $2`],
      [`SELECT /* ? */ ?`, `SELECT /* ? */ $1`],
      [
        `SELECT json_extract(payload, '$.a?') FROM t WHERE id = ?`,
        `SELECT json_extract(payload, '$.a?') FROM t WHERE id = $1`,
      ],
    ];
    for (const [text, expected] of cases) expect(toPostgresPlaceholders(text)).toBe(expected);
  });
});

describe('openPostgres: the Sql interface on a real PostgreSQL', () => {
  let database: TestDatabase;
  let db: Database;
  let other: Database;
  const logged: string[] = [];
  const options = (): PostgresOptions => ({
    url: database.url,
    ...OPTIONS,
    log: (message) => logged.push(message),
  });

  beforeAll(async () => {
    database = await createTestDatabase();
    db = await openPostgres(options());
    // A second pool on the same database: another instance.
    other = await openPostgres(options());
    await db.run('CREATE TABLE scratch (id BIGINT PRIMARY KEY, label TEXT, data BYTEA)');
  });
  afterAll(async () => {
    await db?.close();
    await other?.close();
    await database?.drop();
  });

  it('runs statements with ? parameters: rows, the first row, and how many rows changed', async () => {
    expect(db.dialect).toBe('postgres');
    const inserted = await db.run('INSERT INTO scratch (id, label, data) VALUES (?, ?, ?), (?, ?, ?)', [
      1,
      'one',
      Buffer.from([0, 1, 255]),
      2,
      'two?',
      null,
    ]);
    expect(inserted).toEqual({ changes: 2 });
    expect(await db.all('SELECT id, label FROM scratch ORDER BY id')).toEqual([
      { id: 1, label: 'one' },
      { id: 2, label: 'two?' },
    ]);
    const row = await db.get<{ id: number; data: Buffer }>('SELECT id, data FROM scratch WHERE label = ?', [
      'one',
    ]);
    expect(row?.id).toBe(1);
    expect(Buffer.compare(row?.data ?? Buffer.alloc(0), Buffer.from([0, 1, 255]))).toBe(0);
    expect(await db.get('SELECT * FROM scratch WHERE id = ?', [99])).toBeUndefined();
    expect(await db.run("UPDATE scratch SET label = label || '!' WHERE id > ?", [0])).toEqual({ changes: 2 });
    expect(await db.run('DELETE FROM scratch WHERE id = ?', [99])).toEqual({ changes: 0 });
  });

  it('gives bigint, count(*), sum() and booleans as JS numbers, as SQLite does', async () => {
    const row = await db.get(
      'SELECT count(*) AS n, sum(id) AS total, max(id) AS top, EXISTS (SELECT 1) AS yes, 1 > 2 AS no FROM scratch',
    );
    expect(row).toEqual({ n: 2, total: 3, top: 2, yes: 1, no: 0 });
    expect(await db.get('SELECT ? AS at', [1_700_000_000_000])).toEqual({ at: '1700000000000' });
    expect(await db.get('SELECT CAST(? AS BIGINT) AS at', [1_700_000_000_000])).toEqual({
      at: 1_700_000_000_000,
    });
    // The pool's own parsers: pg's global ones (any other pool in the process) still give int8 as text.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      expect((await client.query('SELECT count(*) AS n FROM scratch')).rows[0]).toEqual({ n: '2' });
    } finally {
      await client.end();
    }
  });

  it('commits a transaction whole, rolls it back on a throw, and runs a nested one inside the outer', async () => {
    const result = await db.transaction(async (tx) => {
      await tx.run('INSERT INTO scratch (id, label) VALUES (?, ?)', [10, 'ten']);
      await tx.transaction((inner) =>
        inner.run('INSERT INTO scratch (id, label) VALUES (?, ?)', [11, 'eleven']),
      );
      return 'done';
    });
    expect(result).toBe('done');
    expect(await db.get('SELECT count(*) AS n FROM scratch WHERE id IN (10, 11)')).toEqual({ n: 2 });

    const failure = new Error('changed my mind');
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO scratch (id, label) VALUES (?, ?)', [12, 'twelve']);
        await tx.transaction(async (inner) => {
          await inner.run('INSERT INTO scratch (id, label) VALUES (?, ?)', [13, 'thirteen']);
          throw failure;
        });
      }),
    ).rejects.toBe(failure);
    expect(await db.get('SELECT count(*) AS n FROM scratch WHERE id IN (12, 13)')).toEqual({ n: 0 });

    // A failed statement rolls back the statements before it; the pool's client is usable afterwards.
    await expect(
      db.transaction(async (tx) => {
        await tx.run('INSERT INTO scratch (id, label) VALUES (?, ?)', [14, 'fourteen']);
        await tx.run('INSERT INTO scratch (id, label) VALUES (?, ?)', [10, 'duplicate']);
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await db.get('SELECT count(*) AS n FROM scratch WHERE id = 14')).toEqual({ n: 0 });
    for (let i = 0; i < OPTIONS.poolMax + 1; i += 1) {
      expect(await db.transaction((tx) => tx.get('SELECT 1 AS one'))).toEqual({ one: 1 });
    }
  });

  it('serialises write transactions across instances: the second waits for the first to commit', async () => {
    await db.run('DELETE FROM scratch');
    const inFirst = gate();
    const finishFirst = gate();
    const first = db.transaction(async (tx) => {
      await tx.run('INSERT INTO scratch (id, label) VALUES (?, ?)', [1, 'first']);
      inFirst.open();
      await finishFirst.opened;
    });
    await inFirst.opened;
    let secondSaw: number | undefined;
    const second = other.transaction(async (tx) => {
      secondSaw = (await tx.get<{ n: number }>('SELECT count(*) AS n FROM scratch'))?.n;
      await tx.run('INSERT INTO scratch (id, label) VALUES (?, ?)', [2, 'second']);
    });
    // The second instance's transaction is blocked on the write lock while the first is open.
    await until(async () => {
      const waiting = await db.get<{ n: number }>(
        `SELECT count(*) AS n FROM pg_locks
         WHERE locktype = 'advisory' AND NOT granted AND ((classid::bigint << 32) | objid::bigint) = ?`,
        [WRITE_LOCK_KEY],
      );
      return waiting?.n === 1;
    });
    expect(secondSaw).toBeUndefined();
    finishFirst.open();
    await Promise.all([first, second]);
    expect(secondSaw).toBe(1);
  });

  it('keeps a read-then-write limit exact under concurrent transactions of two instances', async () => {
    await db.run('DELETE FROM scratch');
    const LIMIT = 5;
    const attempt = (instance: Database, id: number) =>
      instance.transaction(async (tx) => {
        const count = (await tx.get<{ n: number }>('SELECT count(*) AS n FROM scratch'))?.n ?? 0;
        if (count >= LIMIT) return false;
        await tx.run('INSERT INTO scratch (id, label) VALUES (?, ?)', [id, 'attempt']);
        return true;
      });
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, id) => attempt(id % 2 === 0 ? db : other, id)),
    );
    expect(results.filter(Boolean)).toHaveLength(LIMIT);
    expect(await db.get('SELECT count(*) AS n FROM scratch')).toEqual({ n: LIMIT });
  });

  it('prepares each statement once per connection, and again when its table changed under it', async () => {
    await db.run('CREATE TABLE widened (a INTEGER)');
    await db.run('INSERT INTO widened (a) VALUES (?)', [1]);
    expect(await db.all('SELECT * FROM widened')).toEqual([{ a: 1 }]);
    expect(await db.transaction((tx) => tx.all('SELECT * FROM widened WHERE a = ?', [1]))).toEqual([
      { a: 1 },
    ]);
    // Another instance migrates (a rolling deploy): the prepared SELECT * would now return another row type.
    await other.run('ALTER TABLE widened ADD COLUMN b TEXT');
    expect(await db.all('SELECT * FROM widened')).toEqual([{ a: 1, b: null }]);
    // Inside a transaction the refusal spoils that transaction (it has begun); the statements after it are fine.
    await db.transaction((tx) => tx.all('SELECT * FROM widened WHERE a = ?', [1])).catch(() => undefined);
    expect(await db.transaction((tx) => tx.all('SELECT * FROM widened WHERE a = ?', [1]))).toEqual([
      { a: 1, b: null },
    ]);
  });

  it('proves a write with probeWrite: the readiness row of meta', async () => {
    const now = Date.UTC(2026, 10, 23, 12, 0, 0);
    await db.probeWrite(now);
    await db.probeWrite(now + 1000);
    expect(await db.all("SELECT key, value FROM meta WHERE key = 'readiness_probe'")).toEqual([
      { key: 'readiness_probe', value: new Date(now + 1000).toISOString() },
    ]);
  });

  it('logs (and survives) an idle connection the server ends, and opens a new one for the next query', async () => {
    await db.all('SELECT 1');
    logged.length = 0;
    const ended = await other.all<{ ended: number }>(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = 'account-portal'
         AND state = 'idle'`,
    );
    expect(ended.length).toBeGreaterThan(0);
    await until(
      async () => logged.filter((line) => line.includes('idle connection failed')).length === ended.length,
    );
    expect(await db.get('SELECT 2 AS two')).toEqual({ two: 2 });
  });

  it('sends a statement again when the server ended its idle connection before running it', async () => {
    // Every connection of both pools is ended while the pools have not heard of it yet: each statement may land on
    // ended connections (57P01) one after the other, and is sent again until it runs on a new one.
    const busy = (instance: Database) =>
      Promise.all(Array.from({ length: OPTIONS.poolMax }, () => instance.get('SELECT pg_sleep(0.02)')));
    await Promise.all([busy(db), busy(other)]);
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      for (let round = 0; round < 5; round += 1) {
        await Promise.all([busy(db), busy(other)]);
        await admin.query(
          `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
           WHERE datname = current_database() AND application_name = 'account-portal' AND state = 'idle'`,
        );
        expect(await db.get('SELECT 3 AS three')).toEqual({ three: 3 });
        expect(await other.transaction((tx) => tx.get('SELECT 4 AS four'))).toEqual({ four: 4 });
      }
    } finally {
      await admin.end();
    }
  });

  it('fails a statement past statement_timeout fast, with an error the classifier calls unavailable', async () => {
    const quick = await openPostgres({ ...options(), statementTimeoutMs: 200 });
    try {
      const started = Date.now();
      const error = await quick.get('SELECT pg_sleep(5)').catch((caught: unknown) => caught);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(error).toMatchObject({ code: '57014' });
      expect(storageUnavailableReason(error)).toMatch(/statement_timeout/);
      expect(await quick.get('SELECT 1 AS one')).toEqual({ one: 1 });
    } finally {
      await quick.close();
    }
  });

  it('fails a request fast when every connection is busy (acquire timeout), classified unavailable', async () => {
    const small = await openPostgres({ ...options(), poolMax: 1, connectTimeoutMs: 300 });
    const release = gate();
    const inside = gate();
    const holder = small.transaction(async () => {
      inside.open();
      await release.opened;
    });
    try {
      await inside.opened;
      const started = Date.now();
      const error = await small.get('SELECT 1').catch((caught: unknown) => caught);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(storageUnavailableReason(error)).toBe('no database connection was free in time');
    } finally {
      release.open();
      await holder;
      await small.close();
    }
    // Closing twice is harmless; a closed database refuses work.
    await small.close();
    await expect(small.get('SELECT 1')).rejects.toThrow();
  });

  it('keeps connections for reads during a burst of write transactions (they queue without one)', async () => {
    const small = await openPostgres({ ...options(), poolMax: 2, connectTimeoutMs: 500 });
    try {
      // Ten writers, each holding the write lock for 100 ms: one at a time, about a second in all.
      const writes = Array.from({ length: 10 }, (_, index) =>
        small.transaction(async (tx) => {
          await tx.run('INSERT INTO scratch (id, label) VALUES (?, ?)', [9000 + index, 'burst']);
          await tx.get('SELECT pg_sleep(0.1)');
        }),
      );
      // Reads meanwhile get a connection at once: without the gate every connection would wait for the lock.
      const started = Date.now();
      const reads = await Promise.all(
        Array.from({ length: 5 }, () =>
          small.get<{ n: number }>("SELECT count(*) AS n FROM scratch WHERE label = 'burst'"),
        ),
      );
      expect(Date.now() - started).toBeLessThan(500);
      expect(reads.every((row) => row !== undefined && row.n < 10)).toBe(true);
      await Promise.all(writes);
      expect(
        (await small.get<{ n: number }>("SELECT count(*) AS n FROM scratch WHERE label = 'burst'"))?.n,
      ).toBe(10);
    } finally {
      await small.close();
    }
  });

  it('gives up a write transaction that waited for its turn too long, classified unavailable', async () => {
    const small = await openPostgres({
      ...options(),
      poolMax: 2,
      connectTimeoutMs: 100,
      statementTimeoutMs: 200,
    });
    try {
      const release = gate();
      const inside = gate();
      const holder = small.transaction(async () => {
        inside.open();
        await release.opened;
      });
      await inside.opened;
      const error = await small.transaction(async () => undefined).catch((caught: unknown) => caught);
      expect(storageUnavailableReason(error)).toBe('no database connection was free in time');
      release.open();
      await holder;
      // The queue is free again.
      await expect(small.transaction(async (tx) => tx.get('SELECT 1 AS one'))).resolves.toEqual({ one: 1 });
    } finally {
      await small.close();
    }
  });
});
