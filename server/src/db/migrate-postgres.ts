/**
 * PostgreSQL's migrator, the twin of migrate-sqlite.ts: applies db/migrations.ts's PostgreSQL list under an
 * advisory lock, recording each version in schema_migrations.
 */
import pg from 'pg';
import { postgresMigrations, type PostgresMigration } from './migrations.js';

/** The migrations' advisory lock key (the write transactions' is WRITE_LOCK_KEY, db/postgres-write-gate.ts). */
export const MIGRATION_LOCK_KEY = '8101820098839052290';

/** Start-up only, nothing is served yet: a migration (or another instance's) may take this long per statement. */
export const MIGRATION_STATEMENT_TIMEOUT_MS = 60_000;

/**
 * Applies the migrations the database has not seen yet, all in one transaction under the migration lock: instances
 * starting together run them once, the others wait and then find nothing to do. Versions applied are rows of
 * schema_migrations (version N = migration N, 1-based, with its name). A database newer than this code, or one
 * whose applied migrations have other names, is refused rather than guessed at. Returns the schema version.
 */
export async function migratePostgres(
  target: pg.Pool | pg.ClientBase,
  migrations: readonly PostgresMigration[] = postgresMigrations,
): Promise<number> {
  const client = target instanceof pg.Pool ? await target.connect() : target;
  let failed = false;
  try {
    await client.query(
      `BEGIN;
       SET LOCAL statement_timeout = ${MIGRATION_STATEMENT_TIMEOUT_MS};
       SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY});
       CREATE TABLE IF NOT EXISTS schema_migrations (
         version    INTEGER PRIMARY KEY,
         name       TEXT NOT NULL,
         applied_at BIGINT NOT NULL
       )`,
    );
    const applied = (
      await client.query<{ version: number; name: string }>(
        'SELECT version, name FROM schema_migrations ORDER BY version',
      )
    ).rows;
    const current = applied.at(-1)?.version ?? 0;
    if (current > migrations.length) {
      throw new Error(
        `The database schema is version ${current}, newer than this server knows (${migrations.length}). ` +
          'Run a newer server or restore a backup.',
      );
    }
    for (const row of applied) {
      const known = migrations[row.version - 1]?.name;
      if (known !== row.name) {
        throw new Error(
          `The database's migration ${row.version} is "${row.name}", but this server's is "${known ?? 'none'}": ` +
            'it was made by another version of the portal.',
        );
      }
    }
    for (let version = current + 1; version <= migrations.length; version += 1) {
      const migration = migrations[version - 1] as PostgresMigration;
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        version,
        migration.name,
        Date.now(),
      ]);
    }
    await client.query('COMMIT');
    return migrations.length;
  } catch (error) {
    failed = true;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    if (target instanceof pg.Pool) (client as pg.PoolClient).release(failed);
  }
}
