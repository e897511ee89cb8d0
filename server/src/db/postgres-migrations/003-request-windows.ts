import type { PostgresMigration } from './index.js';

/**
 * The per-address request counts, as SQLite's 009-request-windows. UNLOGGED: a count that lives a minute is not
 * worth a WAL flush on every authorization and token request; after a crash of the database server the table
 * starts empty, which lets each address at most one more window.
 */
export const m003RequestWindows: PostgresMigration = {
  name: '003-request-windows',
  sql: `
    CREATE UNLOGGED TABLE request_windows (
      -- The limit's name and the client address: 'token:203.0.113.9'.
      key     TEXT PRIMARY KEY,
      -- The end of the key's current window (ms since the epoch); a request after it starts a new one.
      ends_at BIGINT NOT NULL,
      -- Requests counted in that window.
      hits    INTEGER NOT NULL
    );
    CREATE INDEX request_windows_ends_at ON request_windows (ends_at);
  `,
};
