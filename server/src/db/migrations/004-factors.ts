import type { Migration } from './index.js';

export const m004Factors: Migration = {
  name: '004-factors',
  up(db) {
    db.exec(`
      -- A user's 2-step factors: one row per factor type. A row exists from enrolment on; removal deletes it.
      CREATE TABLE user_factors (
        user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        type         TEXT NOT NULL CHECK (type IN ('google-auth', 'email')),
        status       TEXT NOT NULL CHECK (status IN ('PENDING_ACTIVATION', 'ACTIVE', 'INACTIVE')),
        -- Authenticator app: the TOTP secret, AES-256-GCM encrypted (v1:iv.tag.ciphertext, base64url).
        secret_enc   TEXT,
        -- Authenticator app: the last accepted TOTP time step; a code of that step or older is refused.
        last_step    INTEGER,
        -- When the factor was activated (ISO date); NULL until then.
        enrolled_at  TEXT,
        updated_at   TEXT NOT NULL,
        PRIMARY KEY (user_id, type)
      ) STRICT;

      -- The one pending email code of a user: a new send replaces it, a correct use deletes it.
      CREATE TABLE email_codes (
        user_id     TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        -- What the code may be used for: activating the email factor, or verifying (step-up, sign-in).
        purpose     TEXT NOT NULL CHECK (purpose IN ('activate', 'verify')),
        -- HMAC-SHA256 of the code (keyed, per user and purpose), hex. The code itself is never stored.
        code_hash   TEXT NOT NULL,
        sent_at     INTEGER NOT NULL,
        expires_at  INTEGER NOT NULL
      ) STRICT;

      -- Successful step-up verifications, bound to the sign-in session (access token sid) that verified.
      CREATE TABLE stepup_grants (
        user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        session_id  TEXT NOT NULL,
        factor      TEXT NOT NULL,
        expires_at  INTEGER NOT NULL,
        PRIMARY KEY (user_id, session_id)
      ) STRICT;

      -- Events the throttles count: wrong codes and email sends, per user (ms since the epoch).
      CREATE TABLE factor_throttle_events (
        user_id  TEXT NOT NULL,
        kind     TEXT NOT NULL CHECK (kind IN ('wrong-code', 'email-send')),
        at       INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX factor_throttle_events_user ON factor_throttle_events (user_id, kind, at);
    `);
  },
};
