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
export const migrations: readonly Migration[] = [
  {
    // Recovery codes (factors/recovery-codes.ts): one row per code of the holder's current set, kept only as a
    // keyed hash (HMAC-SHA-256 under a key derived from TOTP_ENCRYPTION_KEY), used once (used_at). Embedded mode
    // only, so the rows belong to a user of the directory and go with it.
    id: '013-recovery-codes',
    sqlite: `
      CREATE TABLE recovery_codes (
        user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        -- HMAC-SHA-256 of the user id and the normalised code, hex: the code itself is never stored.
        code_hash     TEXT NOT NULL,
        -- When the set was generated (ms since the epoch); the same for every code of the set.
        generated_at  INTEGER NOT NULL,
        -- When the code was used (ms); NULL while it is unused. A code is used once.
        used_at       INTEGER,
        PRIMARY KEY (user_id, code_hash)
      ) STRICT;
    `,
    postgres: `
      CREATE TABLE recovery_codes (
        user_id       TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        code_hash     TEXT NOT NULL,
        generated_at  BIGINT NOT NULL,
        used_at       BIGINT,
        PRIMARY KEY (user_id, code_hash)
      );
    `,
  },
  {
    // "Forgot password" (issue 20, password/reset.ts): the links' tokens, kept only as SHA-256 hashes, and the
    // throttle of reset requests. Embedded mode only: a token belongs to a user of the directory and goes with it.
    id: '014-password-reset-tokens',
    sqlite: `
      -- One row per live reset link (a newer link replaces it): the token's SHA-256 (never the token), its account,
      -- a fingerprint of the password hash it was issued under (a changed password voids it), its posts so far,
      -- and whether the account's second factor was proven with it (1) before the new password.
      CREATE TABLE password_reset_tokens (
        token_hash           TEXT PRIMARY KEY,
        user_id              TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        password_fingerprint TEXT NOT NULL,
        created_at           INTEGER NOT NULL,
        expires_at           INTEGER NOT NULL,
        attempts             INTEGER NOT NULL DEFAULT 0,
        factor_verified      INTEGER NOT NULL DEFAULT 0
      ) STRICT;
      CREATE INDEX password_reset_tokens_user ON password_reset_tokens (user_id);
      CREATE INDEX password_reset_tokens_expiry ON password_reset_tokens (expires_at);

      -- Reset requests per typed email (a keyed hash, counted whether or not an account uses it). ms since the epoch.
      CREATE TABLE password_reset_requests (
        key TEXT NOT NULL,
        at  INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX password_reset_requests_key ON password_reset_requests (key, at);
      CREATE INDEX password_reset_requests_at ON password_reset_requests (at);
    `,
    postgres: `
      CREATE TABLE password_reset_tokens (
        token_hash           TEXT PRIMARY KEY,
        user_id              TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        password_fingerprint TEXT NOT NULL,
        created_at           BIGINT NOT NULL,
        expires_at           BIGINT NOT NULL,
        attempts             BIGINT NOT NULL DEFAULT 0,
        factor_verified      BIGINT NOT NULL DEFAULT 0
      );
      CREATE INDEX password_reset_tokens_user ON password_reset_tokens (user_id);
      CREATE INDEX password_reset_tokens_expiry ON password_reset_tokens (expires_at);

      CREATE TABLE password_reset_requests (
        key TEXT NOT NULL,
        at  BIGINT NOT NULL
      );
      CREATE INDEX password_reset_requests_key ON password_reset_requests (key, at);
      CREATE INDEX password_reset_requests_at ON password_reset_requests (at);
    `,
  },
  {
    // Passkeys (WebAuthn, passkeys/): the holder's credentials and the ceremonies' single-use challenges. Embedded
    // mode only: a passkey belongs to a user of the directory and goes with it.
    id: '015-passkeys',
    sqlite: `
      -- One row per registered credential. credential_id (base64url) is unique across every account, so one
      -- authenticator's key can never be registered to two. public_key is the COSE key (base64url); counter is the
      -- last signature counter seen; cloned_at is set when the counter went backwards: the passkey is refused.
      CREATE TABLE passkeys (
        id             TEXT PRIMARY KEY,
        user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        credential_id  TEXT NOT NULL UNIQUE,
        public_key     TEXT NOT NULL,
        counter        INTEGER NOT NULL,
        transports     TEXT NOT NULL,
        aaguid         TEXT NOT NULL,
        backed_up      INTEGER NOT NULL,
        device_type    TEXT NOT NULL,
        name           TEXT NOT NULL,
        created_at     INTEGER NOT NULL,
        last_used_at   INTEGER,
        cloned_at      INTEGER
      ) STRICT;
      CREATE INDEX passkeys_user ON passkeys (user_id);

      -- A ceremony's challenge (kept only as its SHA-256), for one purpose, bound to a user (or none: a sign-in
      -- with a discoverable passkey) and to the sign-in session or interaction that asked; deleted when used.
      CREATE TABLE webauthn_challenges (
        challenge_hash TEXT PRIMARY KEY,
        purpose        TEXT NOT NULL CHECK (purpose IN ('registration', 'authentication')),
        user_id        TEXT,
        binding        TEXT NOT NULL,
        expires_at     INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at);
    `,
    postgres: `
      CREATE TABLE passkeys (
        id             TEXT PRIMARY KEY,
        user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        credential_id  TEXT NOT NULL UNIQUE,
        public_key     TEXT NOT NULL,
        counter        BIGINT NOT NULL,
        transports     TEXT NOT NULL,
        aaguid         TEXT NOT NULL,
        backed_up      BIGINT NOT NULL,
        device_type    TEXT NOT NULL,
        name           TEXT NOT NULL,
        created_at     BIGINT NOT NULL,
        last_used_at   BIGINT,
        cloned_at      BIGINT
      );
      CREATE INDEX passkeys_user ON passkeys (user_id);

      CREATE TABLE webauthn_challenges (
        challenge_hash TEXT PRIMARY KEY,
        purpose        TEXT NOT NULL CHECK (purpose IN ('registration', 'authentication')),
        user_id        TEXT,
        binding        TEXT NOT NULL,
        expires_at     BIGINT NOT NULL
      );
      CREATE INDEX webauthn_challenges_expiry ON webauthn_challenges (expires_at);
    `,
  },
  {
    // Activity (issue 22, activity/): the account's security events, each written in the transaction of the change
    // it records, kept 90 days. Embedded mode only: an event belongs to a user of the directory and goes with it.
    id: '016-activity-events',
    sqlite: `
      -- One row per event. id: 20 random base62 characters (the page's cursor is at and id). kind: one of the
      -- contract's ACTIVITY_EVENT_KINDS; detail: its method or reason, or NULL. at: ms since the epoch. The client
      -- as described when the event was written: browser, os, device_type (bowser's names, or NULL), country (ISO
      -- 3166-1 alpha-2, or NULL) and address, coarse only (203.0.113.x, or an IPv6 /48): never the full address.
      CREATE TABLE activity_events (
        id           TEXT PRIMARY KEY,
        user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind         TEXT NOT NULL,
        detail       TEXT,
        at           INTEGER NOT NULL,
        browser      TEXT,
        os           TEXT,
        device_type  TEXT,
        country      TEXT,
        address      TEXT
      ) STRICT;
      CREATE INDEX activity_events_user_at ON activity_events (user_id, at, id);
      CREATE INDEX activity_events_at ON activity_events (at);
    `,
    postgres: `
      CREATE TABLE activity_events (
        id           TEXT PRIMARY KEY,
        user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        kind         TEXT NOT NULL,
        detail       TEXT,
        at           BIGINT NOT NULL,
        browser      TEXT,
        os           TEXT,
        device_type  TEXT,
        country      TEXT,
        address      TEXT
      );
      CREATE INDEX activity_events_user_at ON activity_events (user_id, at, id);
      CREATE INDEX activity_events_at ON activity_events (at);
    `,
  },
  {
    // Devices (issue 22, devices/): what the Devices list shows of each sign-in session of the embedded provider,
    // described once at sign-in; "last active" moves at most once a minute per session. A row goes with its
    // session (sign-out, a session ended by a change or from the list, its expiry) and with its user.
    id: '017-account-sessions',
    sqlite: `
      -- id: 20 random base62 characters, the list's opaque id (never the provider's session id). session_uid: the
      -- provider session's uid as a SHA-256 hash, as oidc_payloads.uid keeps it. The client as described at
      -- sign-in: browser, os, device_type (bowser's names, or NULL), country (ISO 3166-1 alpha-2, or NULL) and
      -- address, coarse only (203.0.113.x, or an IPv6 /48). Times in ms since the epoch.
      CREATE TABLE account_sessions (
        id              TEXT PRIMARY KEY,
        user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        session_uid     TEXT NOT NULL UNIQUE,
        browser         TEXT,
        os              TEXT,
        device_type     TEXT,
        country         TEXT,
        address         TEXT,
        signed_in_at    INTEGER NOT NULL,
        last_active_at  INTEGER
      ) STRICT;
      CREATE INDEX account_sessions_user ON account_sessions (user_id);
    `,
    postgres: `
      CREATE TABLE account_sessions (
        id              TEXT PRIMARY KEY,
        user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        session_uid     TEXT NOT NULL UNIQUE,
        browser         TEXT,
        os              TEXT,
        device_type     TEXT,
        country         TEXT,
        address         TEXT,
        signed_in_at    BIGINT NOT NULL,
        last_active_at  BIGINT
      );
      CREATE INDEX account_sessions_user ON account_sessions (user_id);
    `,
  },
  {
    // "This wasn't me" links (issue 22, devices/not-me-links.ts): the link in the notice of a 2-step method added,
    // which removes that method and signs out every session without signing in. Used once, valid 24 hours.
    id: '018-not-me-links',
    sqlite: `
      -- One row per live link: the token's SHA-256 (never the token), its account, the method it removes (method:
      -- googleAuth, email or passkey) and which instance of it (instance: a factor's activation time, a passkey's
      -- id), so a method removed, or removed and set up again, is not touched. ms since the epoch. No foreign key:
      -- a link of an account that went finds no account and is refused; the expired rows are deleted by a job.
      CREATE TABLE not_me_links (
        token_hash  TEXT PRIMARY KEY,
        user_id     TEXT NOT NULL,
        method      TEXT NOT NULL,
        instance    TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        expires_at  INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX not_me_links_expiry ON not_me_links (expires_at);
    `,
    postgres: `
      CREATE TABLE not_me_links (
        token_hash  TEXT PRIMARY KEY,
        user_id     TEXT NOT NULL,
        method      TEXT NOT NULL,
        instance    TEXT NOT NULL,
        created_at  BIGINT NOT NULL,
        expires_at  BIGINT NOT NULL
      );
      CREATE INDEX not_me_links_expiry ON not_me_links (expires_at);
    `,
  },
  {
    // The preferred 2-step method (issue 22, factors/preferred-method.ts): the one the sign-in's 2-step page and the
    // step-up open with. Both modes: the row names the account (Okta's user id in Okta mode) and references nothing;
    // the method counts only while it is active, and turning it off or removing it deletes the row.
    id: '019-preferred-method',
    sqlite: `
      -- method: googleAuth, email or passkey (the contract's PREFERRED_METHODS). chosen_at: ms since the epoch.
      CREATE TABLE account_preferred_methods (
        account_id  TEXT PRIMARY KEY,
        method      TEXT NOT NULL CHECK (method IN ('googleAuth', 'email', 'passkey')),
        chosen_at   INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
    `,
    postgres: `
      CREATE TABLE account_preferred_methods (
        account_id  TEXT PRIMARY KEY,
        method      TEXT NOT NULL CHECK (method IN ('googleAuth', 'email', 'passkey')),
        chosen_at   BIGINT NOT NULL
      );
    `,
  },
  {
    // Devices in Okta mode (issue 22, devices/org-sessions.ts): the org's sign-ins whose access tokens reached the
    // API, recorded at the first one. A sign-in signed out from the list keeps its row (ended_at) so the API refuses
    // its tokens; every row goes once its tokens stopped coming for the retention window. No foreign key: the
    // accounts are the org's (user_id is Okta's user id).
    id: '020-org-sessions',
    sqlite: `
      -- id: 20 random base62 characters, the list's opaque id. sign_in: a SHA-256 of the account and what names the
      -- sign-in in its access tokens (Okta's sid, else auth_time); never a token. The client as described from the
      -- first call (as 017's). signed_in_at: the tokens' auth_time; last_seen_at: when its tokens last reached the
      -- API (accepted, or refused once ended); ended_at: when it was signed out from the list. ms since the epoch.
      CREATE TABLE org_sessions (
        id            TEXT PRIMARY KEY,
        user_id       TEXT NOT NULL,
        sign_in       TEXT NOT NULL UNIQUE,
        browser       TEXT,
        os            TEXT,
        device_type   TEXT,
        country       TEXT,
        address       TEXT,
        signed_in_at  INTEGER NOT NULL,
        last_seen_at  INTEGER NOT NULL,
        ended_at      INTEGER
      ) STRICT;
      CREATE INDEX org_sessions_user ON org_sessions (user_id);
      CREATE INDEX org_sessions_last_seen ON org_sessions (last_seen_at);
    `,
    postgres: `
      CREATE TABLE org_sessions (
        id            TEXT PRIMARY KEY,
        user_id       TEXT NOT NULL,
        sign_in       TEXT NOT NULL UNIQUE,
        browser       TEXT,
        os            TEXT,
        device_type   TEXT,
        country       TEXT,
        address       TEXT,
        signed_in_at  BIGINT NOT NULL,
        last_seen_at  BIGINT NOT NULL,
        ended_at      BIGINT
      );
      CREATE INDEX org_sessions_user ON org_sessions (user_id);
      CREATE INDEX org_sessions_last_seen ON org_sessions (last_seen_at);
    `,
  },
  {
    // Releases (issue 23, releases/): each remote's published versions with their load counts, the one stable and
    // at most one canary per remote, the audit of every action, and the deploy keys the teams act with.
    id: '021-releases',
    sqlite: `
      -- One row per published version. integrity: sha384-… of its remoteEntry.js. published_by: the deploy key's
      -- label. loads, failures: the shell's reports (every report is a load; a failed one is a failure too).
      CREATE TABLE release_versions (
        remote        TEXT NOT NULL,
        version       TEXT NOT NULL,
        entry         TEXT NOT NULL,
        integrity     TEXT NOT NULL,
        build_id      TEXT NOT NULL,
        published_by  TEXT NOT NULL,
        published_at  INTEGER NOT NULL,
        loads         INTEGER NOT NULL DEFAULT 0,
        failures      INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (remote, version)
      ) STRICT;
      -- What is live per remote: stable, the stable before it (the fallback), the canary and its percentage.
      CREATE TABLE release_channels (
        remote           TEXT PRIMARY KEY,
        stable           TEXT,
        previous_stable  TEXT,
        canary           TEXT,
        canary_percent   INTEGER,
        updated_at       INTEGER NOT NULL
      ) STRICT;
      -- The audit: who (a deploy key's label, or 'system') did what, when (ms); seq orders events of one ms.
      CREATE TABLE release_events (
        seq      INTEGER PRIMARY KEY,
        remote   TEXT NOT NULL,
        at       INTEGER NOT NULL,
        action   TEXT NOT NULL,
        version  TEXT,
        actor    TEXT NOT NULL
      ) STRICT;
      CREATE INDEX release_events_remote ON release_events (remote, seq);
      -- key_hash: SHA-256 of the key, hex (the key is shown once, never stored). A live label is unique.
      CREATE TABLE deploy_keys (
        key_hash    TEXT PRIMARY KEY,
        label       TEXT NOT NULL,
        remote      TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        revoked_at  INTEGER
      ) STRICT;
      CREATE UNIQUE INDEX deploy_keys_live_label ON deploy_keys (label) WHERE revoked_at IS NULL;
    `,
    postgres: `
      CREATE TABLE release_versions (
        remote        TEXT NOT NULL,
        version       TEXT NOT NULL,
        entry         TEXT NOT NULL,
        integrity     TEXT NOT NULL,
        build_id      TEXT NOT NULL,
        published_by  TEXT NOT NULL,
        published_at  BIGINT NOT NULL,
        loads         BIGINT NOT NULL DEFAULT 0,
        failures      BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (remote, version)
      );
      CREATE TABLE release_channels (
        remote           TEXT PRIMARY KEY,
        stable           TEXT,
        previous_stable  TEXT,
        canary           TEXT,
        canary_percent   BIGINT,
        updated_at       BIGINT NOT NULL
      );
      CREATE TABLE release_events (
        seq      BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        remote   TEXT NOT NULL,
        at       BIGINT NOT NULL,
        action   TEXT NOT NULL,
        version  TEXT,
        actor    TEXT NOT NULL
      );
      CREATE INDEX release_events_remote ON release_events (remote, seq);
      CREATE TABLE deploy_keys (
        key_hash    TEXT PRIMARY KEY,
        label       TEXT NOT NULL,
        remote      TEXT NOT NULL,
        created_at  BIGINT NOT NULL,
        revoked_at  BIGINT
      );
      CREATE UNIQUE INDEX deploy_keys_live_label ON deploy_keys (label) WHERE revoked_at IS NULL;
    `,
  },
  {
    // The canary's votes (issue 23, releases/releases.ts): what decides an automatic rollback is one vote per
    // signed-in holder of the canary's bucket, not the anonymous report counts (anyone can post those).
    id: '022-release-votes',
    sqlite: `
      -- One row per holder (sub: the user id of a valid bearer, in the canary's bucket) who reported a canary run's
      -- version: loaded = 1 once they reported a load, failed = 1 once they reported a failure. A canary's loads
      -- are its rows, its failures the rows with failed = 1. Deleted when the version starts a new canary run.
      CREATE TABLE release_votes (
        remote    TEXT NOT NULL,
        version   TEXT NOT NULL,
        sub       TEXT NOT NULL,
        loaded    INTEGER NOT NULL DEFAULT 0,
        failed    INTEGER NOT NULL DEFAULT 0,
        voted_at  INTEGER NOT NULL,
        PRIMARY KEY (remote, version, sub)
      ) STRICT;
    `,
    postgres: `
      CREATE TABLE release_votes (
        remote    TEXT NOT NULL,
        version   TEXT NOT NULL,
        sub       TEXT NOT NULL,
        loaded    BIGINT NOT NULL DEFAULT 0,
        failed    BIGINT NOT NULL DEFAULT 0,
        voted_at  BIGINT NOT NULL,
        PRIMARY KEY (remote, version, sub)
      );
    `,
  },
];

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
