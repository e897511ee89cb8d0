import type { Migration } from './index.js';

/**
 * Step-up grants and wrong-password events no longer reference `users`: with the okta identity backend the account
 * lives in Okta and has no row here, yet its step-up grants and its wrong-password throttle are the portal's to keep.
 * SQLite cannot drop a foreign key, so both tables are rebuilt with their rows (nothing references them). Rows of a
 * deleted embedded user are no longer deleted with it; they expire as before (grants in 5 minutes, throttle events
 * after their window).
 */
export const m010GrantsWithoutUsers: Migration = {
  name: '010-grants-without-users',
  up(db) {
    db.exec(`
      CREATE TABLE stepup_grants_new (
        user_id     TEXT NOT NULL,
        session_id  TEXT NOT NULL,
        factor      TEXT NOT NULL,
        expires_at  INTEGER NOT NULL,
        PRIMARY KEY (user_id, session_id)
      ) STRICT;
      INSERT INTO stepup_grants_new SELECT user_id, session_id, factor, expires_at FROM stepup_grants;
      DROP TABLE stepup_grants;
      ALTER TABLE stepup_grants_new RENAME TO stepup_grants;

      CREATE TABLE password_change_failures_new (
        user_id   TEXT NOT NULL,
        -- Unix time in milliseconds.
        failed_at INTEGER NOT NULL
      ) STRICT;
      INSERT INTO password_change_failures_new SELECT user_id, failed_at FROM password_change_failures;
      DROP TABLE password_change_failures;
      ALTER TABLE password_change_failures_new RENAME TO password_change_failures;
      CREATE INDEX password_change_failures_user ON password_change_failures (user_id, failed_at);
    `);
  },
};
