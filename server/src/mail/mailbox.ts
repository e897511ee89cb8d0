import type { MailboxStore, StoredMessage } from '../storage/mailbox.js';
import type { Mailer, MailMessage } from './mailer.js';

/** How many messages the mailbox keeps; older ones are deleted as new ones arrive. */
export const MAILBOX_LIMIT = 1000;

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
