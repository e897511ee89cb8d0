import type { Migration } from './index.js';

export const m005Mailbox: Migration = {
  name: '005-mailbox',
  up(db) {
    // The embedded default's built-in mailbox: every email the portal sends, readable at /dev/mailbox.
    db.exec(`
      CREATE TABLE mailbox_messages (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        to_address  TEXT NOT NULL,
        subject     TEXT NOT NULL,
        text        TEXT NOT NULL,
        created_at  TEXT NOT NULL
      ) STRICT;
    `);
  },
};
