import type { Db } from '../db/connection.js';
import type { Mailer, MailMessage } from './mailer.js';

export interface StoredMessage extends MailMessage {
  id: number;
  /** ISO date of sending. */
  date: string;
}

interface MessageRow {
  id: number;
  to_address: string;
  subject: string;
  text: string;
  created_at: string;
}

/** How many messages the mailbox keeps; older ones are deleted as new ones arrive. */
export const MAILBOX_LIMIT = 1000;

/**
 * The development mailbox: messages go into SQLite instead of out to the world, and the developer reads them at
 * /dev/mailbox (HTML) or /dev/mailbox/messages (JSON). It holds every user's codes, so it exists only in the
 * development default or where a deployment asks for it by name (DEV_MAILBOX), never with an https PUBLIC_URL.
 */
export class Mailbox implements Mailer {
  readonly transport = 'mailbox' as const;
  private readonly s;

  constructor(
    db: Db,
    private readonly now: () => number = Date.now,
  ) {
    this.s = {
      insert: db.prepare<[string, string, string, string]>(
        'INSERT INTO mailbox_messages (to_address, subject, text, created_at) VALUES (?, ?, ?, ?)',
      ),
      trim: db.prepare<[number]>(
        'DELETE FROM mailbox_messages WHERE id <= (SELECT max(id) FROM mailbox_messages) - ?',
      ),
      list: db.prepare<[number], MessageRow>('SELECT * FROM mailbox_messages ORDER BY id DESC LIMIT ?'),
    };
  }

  async send(message: MailMessage): Promise<void> {
    this.s.insert.run(message.to, message.subject, message.text, new Date(this.now()).toISOString());
    this.s.trim.run(MAILBOX_LIMIT);
  }

  /** Newest first. */
  list(limit = 100): StoredMessage[] {
    return this.s.list.all(limit).map((row) => ({
      id: row.id,
      to: row.to_address,
      subject: row.subject,
      text: row.text,
      date: row.created_at,
    }));
  }

  async close(): Promise<void> {}
}
