import type { Migration } from './index.js';

/**
 * Per-key request counts of the per-address limits (new authorization requests, token requests, sign-in form
 * posts), shared by every process on the database instead of one map per process (src/throttles/request-windows.ts).
 */
export const m009RequestWindows: Migration = {
  name: '009-request-windows',
  up(db) {
    db.exec(`
      CREATE TABLE request_windows (
        -- The limit's name and the client address: 'token:203.0.113.9'.
        key     TEXT PRIMARY KEY,
        -- The end of the key's current window (ms since the epoch); a request after it starts a new one.
        ends_at INTEGER NOT NULL,
        -- Requests counted in that window.
        hits    INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX request_windows_ends_at ON request_windows (ends_at);
    `);
  },
};
