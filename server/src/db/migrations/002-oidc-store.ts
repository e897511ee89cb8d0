import type { Migration } from './index.js';

export const m002OidcStore: Migration = {
  name: '002-oidc-store',
  up(db) {
    // One table for every oidc-provider model (sessions, grants, codes, refresh tokens, interactions...).
    // account_id, grant_id and session_uid are columns, not only JSON, so "revoke this user's other sessions
    // and refresh tokens" is an indexed query.
    db.exec(`
      CREATE TABLE oidc_payloads (
        model       TEXT NOT NULL,
        id          TEXT NOT NULL,
        payload     TEXT NOT NULL,
        grant_id    TEXT,
        user_code   TEXT,
        uid         TEXT,
        account_id  TEXT,
        session_uid TEXT,
        expires_at  INTEGER,
        consumed_at INTEGER,
        PRIMARY KEY (model, id)
      ) STRICT;
      CREATE INDEX oidc_payloads_grant_id ON oidc_payloads (grant_id) WHERE grant_id IS NOT NULL;
      CREATE INDEX oidc_payloads_account_id ON oidc_payloads (account_id) WHERE account_id IS NOT NULL;
      CREATE INDEX oidc_payloads_uid ON oidc_payloads (model, uid) WHERE uid IS NOT NULL;
      CREATE INDEX oidc_payloads_user_code ON oidc_payloads (model, user_code) WHERE user_code IS NOT NULL;
      CREATE INDEX oidc_payloads_expires_at ON oidc_payloads (expires_at) WHERE expires_at IS NOT NULL;
    `);
  },
};
