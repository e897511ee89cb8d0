import type { Migration } from './index.js';

export const m006AccountProtection: Migration = {
  name: '006-account-protection',
  up(db) {
    db.exec(`
      -- Small facts about this data folder: the TOTP key's fingerprint, whether the demo accounts were seeded once,
      -- the readiness probe's last write.
      CREATE TABLE meta (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) STRICT;

      -- Failed sign-ins (and reservations of attempts in flight), per throttle key: an email for browsers the
      -- account does not know, or a device of the account (its device cookie). ms since the epoch.
      CREATE TABLE signin_failures (
        key TEXT NOT NULL,
        at  INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX signin_failures_key ON signin_failures (key, at);
      CREATE INDEX signin_failures_at ON signin_failures (at);

      -- Notices to the account holder (password changed, factor changed, account locked): written in the same
      -- transaction as the change, delivered afterwards and retried, so a committed change always gets its mail.
      CREATE TABLE notifications (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id         TEXT NOT NULL,
        to_address      TEXT NOT NULL,
        subject         TEXT NOT NULL,
        text            TEXT NOT NULL,
        created_at      INTEGER NOT NULL,
        attempts        INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        sent_at         INTEGER,
        last_error      TEXT
      ) STRICT;
      CREATE INDEX notifications_pending ON notifications (next_attempt_at) WHERE sent_at IS NULL;

      -- Access tokens (JWTs) revoked at /v1/revoke before their expiry; the API refuses them until then.
      CREATE TABLE revoked_access_tokens (
        jti        TEXT PRIMARY KEY,
        expires_at INTEGER NOT NULL
      ) STRICT;
    `);
  },
};
