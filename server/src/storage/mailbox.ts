/**
 * The development mailbox's messages (migration 005's `mailbox_messages`): the interface and its SQL. The mailbox
 * that reads and writes them: mail/mailbox.ts.
 */
import type { Sql } from '../db/sql.js';

/** One message the development mailbox kept. */
export interface StoredMessage {
  id: number;
  to: string;
  subject: string;
  text: string;
  /** ISO date of sending. */
  date: string;
}

/** The development mailbox's messages. */
export interface MailboxStore {
  /** Keeps the message (sent at `date`, ISO), and at most `keep` messages in all (the newest). */
  add(message: Omit<StoredMessage, 'id' | 'date'>, date: string, keep: number): Promise<void>;
  /** Newest first. */
  list(limit: number): Promise<StoredMessage[]>;
}

interface MessageRow {
  id: number;
  to_address: string;
  subject: string;
  text: string;
  created_at: string;
}

/** The mailbox (migration 005) over `Sql`. */
export class SqlMailboxStore implements MailboxStore {
  constructor(private readonly sql: Sql) {}

  async add(message: Omit<StoredMessage, 'id' | 'date'>, date: string, keep: number): Promise<void> {
    if (this.sql.dialect === 'postgres') {
      // One statement (one round trip; SQLite takes no writes in WITH): the insert, then the trim below the new id.
      await this.sql.run(
        `WITH added AS (
           INSERT INTO mailbox_messages (to_address, subject, text, created_at) VALUES (?, ?, ?, ?) RETURNING id)
         DELETE FROM mailbox_messages WHERE id <= (SELECT id FROM added) - ?`,
        [message.to, message.subject, message.text, date, keep],
      );
      return;
    }
    /* v8 ignore start -- @preserve SQLite's path: the sqlite project runs it; the postgres coverage guard skips it. */
    await this.sql.transaction(async (tx) => {
      await tx.run(
        'INSERT INTO mailbox_messages (to_address, subject, text, created_at) VALUES (?, ?, ?, ?)',
        [message.to, message.subject, message.text, date],
      );
      await tx.run('DELETE FROM mailbox_messages WHERE id <= (SELECT max(id) FROM mailbox_messages) - ?', [
        keep,
      ]);
    });
    /* v8 ignore stop -- @preserve */
  }

  async list(limit: number): Promise<StoredMessage[]> {
    const rows = await this.sql.all<MessageRow>('SELECT * FROM mailbox_messages ORDER BY id DESC LIMIT ?', [
      limit,
    ]);
    return rows.map((row) => ({
      id: row.id,
      to: row.to_address,
      subject: row.subject,
      text: row.text,
      date: row.created_at,
    }));
  }
}
