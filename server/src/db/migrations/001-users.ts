import type { Migration } from './index.js';

export const m001Users: Migration = {
  name: '001-users',
  up(db) {
    db.exec(`
      CREATE TABLE users (
        id            TEXT PRIMARY KEY,
        -- NOCASE: alice@example.com and Alice@Example.com are the same account.
        email         TEXT NOT NULL COLLATE NOCASE UNIQUE,
        given_name    TEXT NOT NULL,
        family_name   TEXT NOT NULL,
        -- Two-letter code; empty only for users created from an Okta token that carried no country.
        country       TEXT NOT NULL DEFAULT '' CHECK (country = '' OR length(country) = 2),
        is_federated  INTEGER NOT NULL DEFAULT 0 CHECK (is_federated IN (0, 1)),
        -- NULL for users who never sign in here (created from a real Okta org's token).
        password_hash TEXT,
        created_at    TEXT NOT NULL,
        updated_at    TEXT NOT NULL
      ) STRICT;
    `);
  },
};
