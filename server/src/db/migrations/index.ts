import type Database from 'better-sqlite3';
import { m001Users } from './001-users.js';
import { m002OidcStore } from './002-oidc-store.js';
import { m003PasswordChangeThrottle } from './003-password-change-throttle.js';
import { m004Factors } from './004-factors.js';
import { m005Mailbox } from './005-mailbox.js';
import { m006AccountProtection } from './006-account-protection.js';
import { m007HashedProviderIds } from './007-hashed-provider-ids.js';
import { m008KeyRing } from './008-key-ring.js';
import { m009RequestWindows } from './009-request-windows.js';
import { m010GrantsWithoutUsers } from './010-grants-without-users.js';
import { m011HashedSessionsAndGrants } from './011-hashed-sessions-and-grants.js';
import { m012AccountTokenNotBefore } from './012-account-token-not-before.js';

/** One SQLite migration: `up` runs inside the migration's transaction. */
export interface Migration {
  name: string;
  up(db: Database.Database): void;
}

/**
 * SQLite's migrations written before the one list (db/migrations.ts), 001 to 012: shipped, never edited. A new
 * migration goes into db/migrations.ts, in both dialects.
 */
export const sqliteOnlyMigrations: readonly Migration[] = [
  m001Users,
  m002OidcStore,
  m003PasswordChangeThrottle,
  m004Factors,
  m005Mailbox,
  m006AccountProtection,
  m007HashedProviderIds,
  m008KeyRing,
  m009RequestWindows,
  m010GrantsWithoutUsers,
  m011HashedSessionsAndGrants,
  m012AccountTokenNotBefore,
];
