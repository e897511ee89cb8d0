import type { Sql } from '../db/sql.js';
import type { Mailer, MailMessage } from './mailer.js';

export interface StoredMessage extends MailMessage {
  id: number;
  /** ISO date of sending. */
  date: string;
}

/** How many messages the mailbox keeps; older ones are deleted as new ones arrive. */
export const MAILBOX_LIMIT = 1000;

/** The development mailbox's messages. */
export interface MailboxStore {
  /** Keeps the message (sent at `date`, ISO), and at most `keep` messages in all (the newest). */
  add(message: MailMessage, date: string, keep: number): Promise<void>;
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

  async add(message: MailMessage, date: string, keep: number): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.run(
        'INSERT INTO mailbox_messages (to_address, subject, text, created_at) VALUES (?, ?, ?, ?)',
        [message.to, message.subject, message.text, date],
      );
      await tx.run('DELETE FROM mailbox_messages WHERE id <= (SELECT max(id) FROM mailbox_messages) - ?', [
        keep,
      ]);
    });
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

/**
 * The development mailbox: messages go into storage instead of out to the world, and the developer reads them at
 * /dev/mailbox (HTML) or /dev/mailbox/messages (JSON). It holds every user's codes, so it exists only in the
 * development default or where a deployment asks for it by name (DEV_MAILBOX), never with an https PUBLIC_URL.
 */
export class Mailbox implements Mailer {
  readonly transport = 'mailbox' as const;

  constructor(
    private readonly store: MailboxStore,
    private readonly now: () => number = Date.now,
  ) {}

  async send(message: MailMessage): Promise<void> {
    await this.store.add(message, new Date(this.now()).toISOString(), MAILBOX_LIMIT);
  }

  /** Newest first. */
  list(limit = 100): Promise<StoredMessage[]> {
    return this.store.list(limit);
  }

  async close(): Promise<void> {}
}
