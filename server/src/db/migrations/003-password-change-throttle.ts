import type { Migration } from './index.js';

export const m003PasswordChangeThrottle: Migration = {
  name: '003-password-change-throttle',
  up(db) {
    // One row per wrong current password given to PUT /api/password/:sub/change. Kept in SQLite (not memory) so
    // a restart does not hand a guesser a fresh set of attempts. Rows older than the window are deleted as the
    // throttle reads them and when the user's password changes.
    db.exec(`
      CREATE TABLE password_change_failures (
        user_id   TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        -- Unix time in milliseconds.
        failed_at INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX password_change_failures_user ON password_change_failures (user_id, failed_at);
    `);
  },
};
