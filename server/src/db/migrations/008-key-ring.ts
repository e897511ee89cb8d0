import type { Migration } from './index.js';

/**
 * The key ring (src/keys): the provider's signing keys and cookie keys, shared by every instance on the database
 * instead of one file per machine. Times are ms since the epoch; see src/keys/timeline.ts for what they mean.
 */
export const m008KeyRing: Migration = {
  name: '008-key-ring',
  up(db) {
    db.exec(`
      CREATE TABLE key_ring (
        -- signing: the RFC 7638 thumbprint of the public key (its JWKS kid); cookie: a random id.
        kid         TEXT PRIMARY KEY,
        purpose     TEXT NOT NULL CHECK (purpose IN ('signing', 'cookie')),
        -- signing: the private JWK as JSON; cookie: 32 random bytes, base64url.
        material    TEXT NOT NULL,
        -- Published (in the JWKS) and accepted from this moment.
        created_at  INTEGER NOT NULL,
        signs_from  INTEGER NOT NULL,
        -- Set when its successor is created: then the successor's signs_from. NULL: no successor yet.
        signs_until INTEGER,
        -- No longer published nor accepted from this moment (every token or cookie it signed has expired).
        retired_at  INTEGER
      ) STRICT;
      CREATE INDEX key_ring_purpose ON key_ring (purpose, signs_from);
    `);
  },
};
