import type { PostgresMigration } from './index.js';

/**
 * As SQLite's 010-grants-without-users: step-up grants and wrong-password events no longer reference `users`, since
 * an account of the okta identity backend has no row there.
 */
export const m004GrantsWithoutUsers: PostgresMigration = {
  name: '004-grants-without-users',
  sql: `
    ALTER TABLE stepup_grants DROP CONSTRAINT stepup_grants_user_id_fkey;
    ALTER TABLE password_change_failures DROP CONSTRAINT password_change_failures_user_id_fkey;
  `,
};
