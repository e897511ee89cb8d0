import BetterSqlite from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres } from '../src/db/migrate-postgres.js';
import { migrateSqlite } from '../src/db/migrate-sqlite.js';
import {
  dialectMigrations,
  migrations,
  postgresMigrations,
  sqliteMigrations,
  type Migration,
  type SqliteMigration,
} from '../src/db/migrations.js';
import { openPostgres } from '../src/db/postgres.js';
import type { Database } from '../src/db/sql.js';
import { createEmptyDatabase, type TestDatabase } from './support/postgres.js';

// Dropping a test database ends the sessions of pools still closing: nothing to report.
const OPTIONS = { poolMax: 2, connectTimeoutMs: 2000, statementTimeoutMs: 5000, log: () => undefined };

/** The shape of a schema, engine-neutral: what SQLite's migrations make must be what PostgreSQL's make. */
interface Shape {
  tables: Record<string, { column: string; type: string; notNull: boolean; primaryKey: boolean }[]>;
  indexes: string[];
  foreignKeys: string[];
  unique: string[];
}

/** SQLite's declared types as the PostgreSQL types they map to. */
const SQLITE_TYPE: Record<string, string> = { INTEGER: 'integer', TEXT: 'text', BLOB: 'bytea' };
/** PostgreSQL's types folded the same way (BIGINT holds SQLite's 64-bit INTEGER; citext is TEXT without case). */
const POSTGRES_TYPE: Record<string, string> = {
  bigint: 'integer',
  integer: 'integer',
  smallint: 'integer',
  text: 'text',
  citext: 'text',
  bytea: 'bytea',
};

function sqliteShape(migrations: readonly SqliteMigration[] = sqliteMigrations): Shape {
  const db = new BetterSqlite(':memory:');
  try {
    migrateSqlite(db, migrations);
    const tables = db
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all()
      .map(({ name }) => name);
    const shape: Shape = { tables: {}, indexes: [], foreignKeys: [], unique: [] };
    for (const table of tables) {
      const columns = db
        .prepare<[], { name: string; type: string; notnull: number; pk: number }>(
          `PRAGMA table_info("${table}")`,
        )
        .all();
      shape.tables[table] = columns.map((column) => ({
        column: column.name,
        type: SQLITE_TYPE[column.type] ?? column.type,
        // SQLite lets a non-INTEGER PRIMARY KEY hold NULL unless declared NOT NULL; PostgreSQL never does.
        notNull: column.notnull === 1 || column.pk > 0,
        primaryKey: column.pk > 0,
      }));
      for (const key of db
        .prepare<[], { from: string; table: string; to: string; on_delete: string }>(
          `PRAGMA foreign_key_list("${table}")`,
        )
        .all()) {
        shape.foreignKeys.push(`${table}.${key.from} -> ${key.table}.${key.to} ON DELETE ${key.on_delete}`);
      }
      for (const index of db
        .prepare<[], { name: string; unique: number; origin: string }>(`PRAGMA index_list("${table}")`)
        .all()) {
        if (index.origin === 'c') shape.indexes.push(index.name);
        if (index.origin === 'u') {
          const columns = db
            .prepare<[], { name: string }>(`PRAGMA index_info("${index.name}")`)
            .all()
            .map(({ name }) => name);
          shape.unique.push(`${table}(${columns.join(', ')})`);
        }
      }
    }
    shape.indexes.sort();
    shape.foreignKeys.sort();
    shape.unique.sort();
    return shape;
  } finally {
    db.close();
  }
}

async function postgresShape(client: pg.Client): Promise<Shape> {
  const shape: Shape = { tables: {}, indexes: [], foreignKeys: [], unique: [] };
  const columns = await client.query<{
    table_name: string;
    column_name: string;
    data_type: string;
    udt_name: string;
    is_nullable: string;
    primary_key: boolean;
  }>(
    `SELECT c.table_name, c.column_name, c.data_type, c.udt_name, c.is_nullable,
            EXISTS (SELECT 1 FROM information_schema.key_column_usage k
                    JOIN information_schema.table_constraints t USING (constraint_schema, constraint_name)
                    WHERE t.constraint_type = 'PRIMARY KEY' AND k.table_name = c.table_name
                      AND k.column_name = c.column_name) AS primary_key
     FROM information_schema.columns c
     WHERE c.table_schema = 'public' AND c.table_name <> 'schema_migrations'
     ORDER BY c.table_name, c.ordinal_position`,
  );
  for (const row of columns.rows) {
    const type = row.data_type === 'USER-DEFINED' ? row.udt_name : row.data_type;
    (shape.tables[row.table_name] ??= []).push({
      column: row.column_name,
      type: POSTGRES_TYPE[type] ?? type,
      notNull: row.is_nullable === 'NO',
      primaryKey: row.primary_key,
    });
  }
  const indexes = await client.query<{ indexname: string }>(
    `SELECT i.indexname FROM pg_indexes i
     WHERE i.schemaname = 'public'
       AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)`,
  );
  shape.indexes = indexes.rows.map(({ indexname }) => indexname).sort();
  const keys = await client.query<{ description: string }>(
    `SELECT format('%s.%s -> %s.%s ON DELETE %s', k.table_name, k.column_name, u.table_name, u.column_name,
                   r.delete_rule) AS description
     FROM information_schema.referential_constraints r
     JOIN information_schema.key_column_usage k USING (constraint_schema, constraint_name)
     JOIN information_schema.constraint_column_usage u USING (constraint_schema, constraint_name)`,
  );
  shape.foreignKeys = keys.rows.map(({ description }) => description).sort();
  const unique = await client.query<{ description: string }>(
    `SELECT format('%s(%s)', t.relname, string_agg(a.attname, ', ' ORDER BY a.attnum)) AS description
     FROM pg_constraint c
     JOIN pg_class t ON t.oid = c.conrelid
     JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = ANY (c.conkey)
     WHERE c.contype = 'u' AND t.relnamespace = 'public'::regnamespace
     GROUP BY c.oid, t.relname`,
  );
  shape.unique = unique.rows.map(({ description }) => description).sort();
  return shape;
}

describe('PostgreSQL migrations', () => {
  const databases: TestDatabase[] = [];
  const opened: Database[] = [];
  const emptyDatabase = async () => {
    const database = await createEmptyDatabase();
    databases.push(database);
    return database;
  };
  const open = async (url: string) => {
    const db = await openPostgres({ url, ...OPTIONS });
    opened.push(db);
    return db;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((db) => db.close()));
    await Promise.all(databases.splice(0).map((database) => database.drop()));
  });

  describe('on a new database', () => {
    let database: TestDatabase;
    let client: pg.Client;
    beforeAll(async () => {
      database = await createEmptyDatabase();
      await (await openPostgres({ url: database.url, ...OPTIONS })).close();
      client = new pg.Client({ connectionString: database.url });
      await client.connect();
    });
    afterAll(async () => {
      await client?.end();
      await database?.drop();
    });

    it('makes the schema SQLite ends with after its migrations: tables, columns, keys, indexes, uniques', async () => {
      expect(await postgresShape(client)).toEqual(sqliteShape());
    });

    it('records each migration applied, by version and name', async () => {
      const { rows } = await client.query('SELECT version, name FROM schema_migrations ORDER BY version');
      expect(rows).toEqual(postgresMigrations.map(({ name }, index) => ({ version: index + 1, name })));
    });

    it('keeps the constraints: case-insensitive unique email, checks, cascading deletes (factors), grants and throttle events without a users row', async () => {
      const insertUser = (id: string, email: string, country = 'US', federated = 0) =>
        client.query(
          `INSERT INTO users (id, email, given_name, family_name, country, is_federated, created_at, updated_at)
           VALUES ($1, $2, 'A', 'B', $3, $4, 'now', 'now')`,
          [id, email, country, federated],
        );
      await insertUser('u1', 'Alice@Example.com');
      await expect(insertUser('u2', 'alice@EXAMPLE.com')).rejects.toMatchObject({ code: '23505' });
      // The stores' SQL finds the account whatever the case, as with SQLite's COLLATE NOCASE.
      expect(
        (await client.query('SELECT id, email FROM users WHERE email = $1', ['ALICE@example.COM'])).rows,
      ).toEqual([{ id: 'u1', email: 'Alice@Example.com' }]);
      await expect(insertUser('u3', 'c@example.com', 'USA')).rejects.toMatchObject({ code: '23514' });
      await expect(insertUser('u4', 'd@example.com', 'US', 2)).rejects.toMatchObject({ code: '23514' });
      await client.query(
        `INSERT INTO user_factors (user_id, type, status, updated_at) VALUES ('u1', 'email', 'ACTIVE', 'now')`,
      );
      await expect(
        client.query(
          `INSERT INTO user_factors (user_id, type, status, updated_at) VALUES ('u1', 'sms', 'ACTIVE', 'x')`,
        ),
      ).rejects.toMatchObject({ code: '23514' });
      await expect(
        client.query(
          `INSERT INTO email_codes (user_id, purpose, code_hash, sent_at, expires_at)
           VALUES ('nobody', 'verify', 'h', 1, 2)`,
        ),
      ).rejects.toMatchObject({ code: '23503' });
      await client.query(`INSERT INTO stepup_grants VALUES ('u1', 's1', 'email', 1700000000000)`);
      await client.query(`INSERT INTO password_change_failures VALUES ('u1', 1700000000000)`);
      // Migration 004: grants and wrong-password events of an account with no row here (the okta backend's).
      await client.query(`INSERT INTO stepup_grants VALUES ('00uOkta', 's1', 'email', 1700000000000)`);
      await client.query(`INSERT INTO password_change_failures VALUES ('00uOkta', 1700000000000)`);
      await client.query("DELETE FROM users WHERE id = 'u1'");
      expect((await client.query(`SELECT count(*)::int AS n FROM user_factors`)).rows).toEqual([{ n: 0 }]);
      // No longer deleted with the user: they expire as they would anyway.
      for (const table of ['stepup_grants', 'password_change_failures']) {
        expect((await client.query(`SELECT user_id FROM ${table} ORDER BY user_id`)).rows).toEqual([
          { user_id: '00uOkta' },
          { user_id: 'u1' },
        ]);
      }
      // Identity columns number rows as SQLite's AUTOINCREMENT does.
      const ids = await client.query(
        `INSERT INTO mailbox_messages (to_address, subject, text, created_at)
         VALUES ('a', 's', 't', 'now'), ('b', 's', 't', 'now') RETURNING id`,
      );
      expect(ids.rows.map((row: { id: string }) => Number(row.id))).toEqual([1, 2]);
    });
  });

  it('does nothing the second time: the same versions, applied once', async () => {
    const database = await emptyDatabase();
    await (await open(database.url)).close();
    const first = await (await open(database.url)).all('SELECT version, applied_at FROM schema_migrations');
    await (await open(database.url)).close();
    const second = await (await open(database.url)).all('SELECT version, applied_at FROM schema_migrations');
    expect(second).toEqual(first);
    expect(first).toHaveLength(postgresMigrations.length);
  });

  it('lets instances start together on a new database: the migrations run once, every opener succeeds', async () => {
    const database = await emptyDatabase();
    const dbs = await Promise.all(Array.from({ length: 4 }, () => open(database.url)));
    expect(await dbs[0]?.all('SELECT version FROM schema_migrations ORDER BY version')).toEqual(
      postgresMigrations.map((_, index) => ({ version: index + 1 })),
    );
  });

  it('applies only the migrations a database lacks', async () => {
    const database = await emptyDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const extra = { name: '002-test-extra', sql: 'CREATE TABLE test_extra (id TEXT PRIMARY KEY)' };
      expect(await migratePostgres(client)).toBe(postgresMigrations.length);
      expect(await migratePostgres(client, [...postgresMigrations, extra])).toBe(
        postgresMigrations.length + 1,
      );
      expect((await client.query('SELECT count(*)::int AS n FROM test_extra')).rows).toEqual([{ n: 0 }]);
    } finally {
      await client.end();
    }
  });

  it('refuses a database newer than this code, naming both versions', async () => {
    const database = await emptyDatabase();
    const db = await open(database.url);
    const newer = postgresMigrations.length + 1;
    await db.run(
      "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, 'from-the-future', 0)",
      [newer],
    );
    await expect(openPostgres({ url: database.url, ...OPTIONS })).rejects.toThrow(
      `The database schema is version ${newer}, newer than this server knows (${postgresMigrations.length}).`,
    );
  });

  it('refuses a database whose applied migrations are another version of the code', async () => {
    const database = await emptyDatabase();
    const db = await open(database.url);
    await db.run("UPDATE schema_migrations SET name = 'something-else' WHERE version = 1");
    await expect(openPostgres({ url: database.url, ...OPTIONS })).rejects.toThrow(
      /migration 1 is "something-else", but this server's is "001-schema"/,
    );
  });

  describe('the one migration list (db/migrations.ts)', () => {
    /** One change in both dialects, as an entry of the list; `postgresAt` is the type PostgreSQL gives `at`. */
    const change = (postgresAt: string): Migration => ({
      id: '999-test-pair',
      sqlite: `CREATE TABLE test_pair (id TEXT PRIMARY KEY, at INTEGER NOT NULL, note TEXT) STRICT;
               CREATE INDEX test_pair_at ON test_pair (at);`,
      postgres: `CREATE TABLE test_pair (id TEXT PRIMARY KEY, at ${postgresAt} NOT NULL, note TEXT);
                 CREATE INDEX test_pair_at ON test_pair (at);`,
    });
    /** Both dialects' schemas after the shipped migrations and `entry`. */
    const shapesWith = async (entry: Migration) => {
      const lists = dialectMigrations([...migrations, entry]);
      const client = new pg.Client({ connectionString: (await emptyDatabase()).url });
      await client.connect();
      try {
        await migratePostgres(client, lists.postgres);
        return { sqlite: sqliteShape(lists.sqlite), postgres: await postgresShape(client) };
      } finally {
        await client.end();
      }
    };

    it('gives each entry to both migrators, after the per-dialect ones, under its id', () => {
      const lists = dialectMigrations([change('BIGINT')]);
      expect(lists.sqlite.at(-1)?.name).toBe('999-test-pair');
      expect(lists.postgres.at(-1)).toEqual({ name: '999-test-pair', sql: change('BIGINT').postgres });
      expect(lists.sqlite.length - sqliteMigrations.length).toBe(
        lists.postgres.length - postgresMigrations.length,
      );
      expect(new Set(migrations.map(({ id }) => id)).size).toBe(migrations.length);
    });

    it('holds the two dialects of an entry together: equal schemas pass, a difference is caught', async () => {
      const matching = await shapesWith(change('BIGINT'));
      expect(matching.postgres.tables['test_pair']).toBeDefined();
      expect(matching.postgres).toEqual(matching.sqlite);
      const differing = await shapesWith(change('TEXT'));
      expect(differing.postgres).not.toEqual(differing.sqlite);
    });
  });

  it('rolls a failing migration back whole', async () => {
    const database = await emptyDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const broken = {
        name: '002-broken',
        sql: 'CREATE TABLE half_done (id TEXT); SELECT no_such_function()',
      };
      await expect(migratePostgres(client, [...postgresMigrations, broken])).rejects.toMatchObject({
        code: '42883',
      });
      expect(
        (await client.query("SELECT to_regclass('half_done') AS t, to_regclass('users') AS u")).rows,
      ).toEqual([{ t: null, u: null }]);
    } finally {
      await client.end();
    }
  });
});
