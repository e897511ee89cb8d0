import type { Migration } from './index.js';

/**
 * Okta mode's per-account "not before" (src/auth/token-not-before.ts): after a password or 2-step change, the
 * account's access tokens issued before it (`iat` earlier than `not_before`) are refused by the API, but the one
 * that made the change (`except_jti`). The org keeps the accounts, so the row names Okta's user id and references
 * nothing.
 */
export const m012AccountTokenNotBefore: Migration = {
  name: '012-account-token-not-before',
  up(db) {
    db.exec(`
      CREATE TABLE account_token_not_before (
        account_id TEXT PRIMARY KEY,
        -- Unix time in seconds (as a token's iat): tokens issued before this second are refused.
        not_before INTEGER NOT NULL,
        -- The jti of the access token that made the change (the caller's, spared), if it had one.
        except_jti TEXT
      ) STRICT, WITHOUT ROWID;
    `);
  },
};
