import { m001Schema } from './001-schema.js';
import { m002KeyRing } from './002-key-ring.js';
import { m003RequestWindows } from './003-request-windows.js';
import { m004GrantsWithoutUsers } from './004-grants-without-users.js';
import { m005HashedSessionsAndGrants } from './005-hashed-sessions-and-grants.js';
import { m006AccountTokenNotBefore } from './006-account-token-not-before.js';

/**
 * One PostgreSQL migration: SQL run as one script (several statements) inside the migration transaction, so it
 * applies whole or not at all. Migration N (1-based) brings the database to version N (table schema_migrations).
 */
export interface PostgresMigration {
  name: string;
  sql: string;
}

/**
 * PostgreSQL's migrations written before the one list (db/migrations.ts), 001 to 006: shipped, never edited. A new
 * migration goes into db/migrations.ts, in both dialects.
 */
export const postgresOnlyMigrations: readonly PostgresMigration[] = [
  m001Schema,
  m002KeyRing,
  m003RequestWindows,
  m004GrantsWithoutUsers,
  m005HashedSessionsAndGrants,
  m006AccountTokenNotBefore,
];
