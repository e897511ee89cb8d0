import type { PostgresMigration } from './index.js';

/** The key ring (src/keys), as SQLite's 008-key-ring: ms times are BIGINT. */
export const m002KeyRing: PostgresMigration = {
  name: '002-key-ring',
  sql: `
    CREATE TABLE key_ring (
      -- signing: the RFC 7638 thumbprint of the public key (its JWKS kid); cookie: a random id.
      kid         TEXT PRIMARY KEY,
      purpose     TEXT NOT NULL CHECK (purpose IN ('signing', 'cookie')),
      -- signing: the private JWK as JSON; cookie: 32 random bytes, base64url.
      material    TEXT NOT NULL,
      -- Published (in the JWKS) and accepted from this moment.
      created_at  BIGINT NOT NULL,
      signs_from  BIGINT NOT NULL,
      -- Set when its successor is created: then the successor's signs_from. NULL: no successor yet.
      signs_until BIGINT,
      -- No longer published nor accepted from this moment (every token or cookie it signed has expired).
      retired_at  BIGINT
    );
    CREATE INDEX key_ring_purpose ON key_ring (purpose, signs_from);
  `,
};
