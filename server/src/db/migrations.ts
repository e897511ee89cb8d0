/**
 * The one migration list: from SQLite's 013 and PostgreSQL's 007 on, each change of the schema is one entry here
 * carrying both dialects' SQL, so neither engine can get a change the other lacks. The migrations written per
 * dialect before it (db/migrations/, db/postgres-migrations/) come first, unchanged. Each migrator
 * (migrate-sqlite.ts, migrate-postgres.ts) applies its dialect's list; test/postgres-migrations.test.ts checks that
 * both lists end in the same schema. The recipe: server/README.md, "Adding a migration".
 */
import { sqliteOnlyMigrations, type Migration as SqliteMigration } from './migrations/index.js';
import { postgresOnlyMigrations, type PostgresMigration } from './postgres-migrations/index.js';

export type { PostgresMigration, SqliteMigration };

/** One change of the schema in both dialects. */
export interface Migration {
  /** Unique and never changed: PostgreSQL records it (schema_migrations.name), e.g. '013-devices'. */
  id: string;
  /** SQLite's statements (STRICT tables, INTEGER for every number). */
  sqlite: string;
  /** PostgreSQL's statements, ending in the same schema (BIGINT for SQLite's INTEGER, citext where it is NOCASE). */
  postgres: string;
}

/** Append only: never edit or reorder a migration that has shipped. */
export const migrations: readonly Migration[] = [];

/** Both dialects' lists: the migrations written per dialect, then the one list's. */
export function dialectMigrations(changes: readonly Migration[]): {
  sqlite: SqliteMigration[];
  postgres: PostgresMigration[];
} {
  return {
    sqlite: [
      ...sqliteOnlyMigrations,
      ...changes.map((change): SqliteMigration => ({ name: change.id, up: (db) => db.exec(change.sqlite) })),
    ],
    postgres: [
      ...postgresOnlyMigrations,
      ...changes.map((change) => ({ name: change.id, sql: change.postgres })),
    ],
  };
}

const lists = dialectMigrations(migrations);

/** What SQLite's migrator applies: version N is entry N (PRAGMA user_version). */
export const sqliteMigrations: readonly SqliteMigration[] = lists.sqlite;

/** What PostgreSQL's migrator applies: version N is entry N (schema_migrations). */
export const postgresMigrations: readonly PostgresMigration[] = lists.postgres;
