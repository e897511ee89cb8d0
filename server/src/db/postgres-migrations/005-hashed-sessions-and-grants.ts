import type { PostgresMigration } from './index.js';

/** SHA-256, base64url without padding: what oidc/adapter.ts `hashedId` makes, in SQL. */
const hash = (column: string) =>
  `rtrim(translate(encode(sha256(convert_to(${column}, 'UTF8')), 'base64'), '+/', '-_'), '=')`;

/**
 * As SQLite's 011-hashed-sessions-and-grants: a Grant row's `id` and the `uid`, `grant_id` and `session_uid`
 * columns keep only SHA-256 hashes (NULL stays NULL). The payloads are sealed by the server at its next start
 * (keys/at-rest.ts), with a key the database never sees.
 */
export const m005HashedSessionsAndGrants: PostgresMigration = {
  name: '005-hashed-sessions-and-grants',
  sql: `
    UPDATE oidc_payloads SET
      id = CASE WHEN model = 'Grant' THEN ${hash('id')} ELSE id END,
      uid = ${hash('uid')},
      grant_id = ${hash('grant_id')},
      session_uid = ${hash('session_uid')};
  `,
};
