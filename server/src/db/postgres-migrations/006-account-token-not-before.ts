import type { PostgresMigration } from './index.js';

/** As SQLite's 012-account-token-not-before: Okta mode's per-account "not before" of access tokens. */
export const m006AccountTokenNotBefore: PostgresMigration = {
  name: '006-account-token-not-before',
  sql: `
    CREATE TABLE account_token_not_before (
      account_id TEXT PRIMARY KEY,
      -- Unix time in seconds (as a token's iat): tokens issued before this second are refused.
      not_before BIGINT NOT NULL,
      -- The jti of the access token that made the change (the caller's, spared), if it had one.
      except_jti TEXT
    );
  `,
};
