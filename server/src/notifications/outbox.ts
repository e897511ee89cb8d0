import type { FastifyBaseLogger } from 'fastify';
import type { Mailer } from '../mail/mailer.js';
import type { ClaimedNotice, OutboxStore } from '../storage/outbox.js';
import { composeNotice, subjectOf, type Notice } from './texts.js';
import type { AccountEvent, EventContext, NotificationRecipient, Notifier } from './types.js';

/** Sends per row before the row is given up (about 9 hours of retries with the delays below). */
export const MAX_ATTEMPTS = 10;
/** A claimed row is the claimer's for this long; if its process died mid-send, another sender takes it then. */
export const CLAIM_MS = 2 * 60 * 1000;
/** Sent and given-up rows are deleted after this. */
export const RETENTION_MS = 30 * 24 * 60 * 60 * 1000;
/** The periodic sweep: retries that came due, rows of another instance's kick that died, pruning. */
export const SWEEP_INTERVAL_MS = 30 * 1000;
const BATCH_SIZE = 20;
/** How long close() waits for a send in flight. */
export const CLOSE_WAIT_MS = 5 * 1000;

/** Wait before the next try after `attempts` failed sends: 30 s, 1 min, 2 min, … at most 1 hour. */
export function retryDelayMs(attempts: number): number {
  return Math.min(30_000 * 2 ** Math.max(0, attempts - 1), 60 * 60 * 1000);
}

export interface OutboxOptions {
  store: OutboxStore;
  mailer: Mailer;
  /** The app's clock (ms since the epoch). */
  now: () => number;
  log: FastifyBaseLogger;
  /** PUBLIC_URL: the notices link to the portal's Password and Security pages. */
  portalUrl: string;
}

/**
 * Notices to the account holder, as an outbox (OutboxStore): `queue()` writes a row in the caller's transaction,
 * and senders deliver due rows afterwards through the mail transport. A sender claims rows (bumps their
 * next_attempt_at, in one IMMEDIATE transaction) before sending, so concurrent sweeps, in this process or
 * another, never send a row twice while its claim lasts. Delivery is at least once: a process that dies
 * between sending and marking leaves the row to be sent again when its claim expires.
 */
export class Outbox implements Notifier {
  private readonly store: OutboxStore;
  private readonly running = new Set<Promise<void>>();
  private kickScheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly options: OutboxOptions) {
    this.store = options.store;
  }

  async queue(
    recipient: NotificationRecipient,
    event: AccountEvent,
    context: EventContext,
    within: OutboxStore = this.store,
  ): Promise<void> {
    const { subject, text } = composeNotice(event, context, this.options.portalUrl);
    const now = this.options.now();
    const secret = context.notMeLink !== undefined;
    await within.add({ userId: recipient.id, to: recipient.email, subject, text, secret }, now);
    this.kick();
  }

  /**
   * Queues a message composed elsewhere (the password reset mails, password/reset-mails.ts) to `recipient`'s
   * address: the same outbox, delivery and retries as the notices. Pass the change's transaction (its outbox).
   * `secret`: the text holds a secret (a reset link), kept sealed until sent and wiped then.
   */
  async queueMessage(
    recipient: NotificationRecipient,
    message: Notice,
    within: OutboxStore = this.store,
    options: { secret?: boolean } = {},
  ): Promise<void> {
    await within.add(
      {
        userId: recipient.id,
        to: recipient.email,
        subject: message.subject,
        text: message.text,
        secret: options.secret === true,
      },
      this.options.now(),
    );
    this.kick();
  }

  /**
   * Whether a notice of this kind of event was queued for the account since `since` (ms): lets a caller send
   * one notice per lockout period instead of one per lockout of a sliding window.
   */
  queuedSince(recipientId: string, event: AccountEvent, since: number): Promise<boolean> {
    return this.store.addedSince(recipientId, subjectOf(event), since);
  }

  /**
   * Delivery soon after the caller's commit: the claim is a write transaction, so it runs after the caller's
   * transaction has committed (or rolled back, and there is nothing to send).
   */
  private kick(): void {
    if (this.kickScheduled || this.closed) return;
    this.kickScheduled = true;
    setImmediate(() => {
      this.kickScheduled = false;
      void this.deliverDue();
    });
  }

  /** Claims and sends every due row, batch by batch; resolves when done. Never throws. */
  deliverDue(): Promise<void> {
    const run = this.deliverBatches().finally(() => this.running.delete(run));
    this.running.add(run);
    return run;
  }

  private async deliverBatches(): Promise<void> {
    while (!this.closed) {
      let rows: ClaimedNotice[];
      try {
        rows = await this.store.claimDue(this.options.now(), CLAIM_MS, MAX_ATTEMPTS, BATCH_SIZE);
      } catch (error) {
        this.options.log.warn({ err: error }, 'account notices: could not claim due notices');
        return;
      }
      if (rows.length === 0) return;
      for (const row of rows) {
        if (this.closed) await this.release(row);
        else await this.send(row);
      }
      // A short batch took every due row: no claim again just to find none (a queue kicks for its own row).
      if (rows.length < BATCH_SIZE) return;
    }
  }

  private async send(row: ClaimedNotice): Promise<void> {
    const { mailer, log, now } = this.options;
    let failure: unknown;
    try {
      await mailer.send({ to: row.to_address, subject: row.subject, text: row.text });
    } catch (error) {
      failure = error;
    }
    try {
      if (failure === undefined) {
        await this.store.markSent(row.id, now());
        return;
      }
      const message = failure instanceof Error ? failure.message : String(failure);
      const givenUp = row.attempts >= MAX_ATTEMPTS;
      await this.store.markFailed(row.id, now() + retryDelayMs(row.attempts), message.slice(0, 500));
      log.warn(
        { err: failure, notification: row.id, userId: row.user_id, attempts: row.attempts },
        givenUp ? 'account notice not sent: given up' : 'account notice not sent: will retry',
      );
    } catch (error) {
      // E.g. the database closed under an in-flight send at shutdown: the claim expires and the row is
      // sent again by the next sweep (at least once).
      log.warn({ err: error, notification: row.id }, 'account notices: could not record a delivery');
    }
  }

  /** Gives a claimed, unsent row back at shutdown, so the next start sends it at once. */
  private async release(row: ClaimedNotice): Promise<void> {
    try {
      await this.store.release(row.id, this.options.now());
    } catch (error) {
      this.options.log.warn(
        { err: error, notification: row.id },
        'account notices: could not release a notice',
      );
    }
  }

  /** Deletes rows sent or given up more than RETENTION_MS ago. */
  prune(): Promise<number> {
    return this.store.prune(this.options.now() - RETENTION_MS, MAX_ATTEMPTS);
  }

  /** Waits for the sends in flight, then delivers whatever is due now (tests, and anyone who must know). */
  async drain(): Promise<void> {
    await Promise.all(this.running);
    await this.deliverDue();
    // A queue's kick may have started a sweep meanwhile whose claim won the rows (on PostgreSQL the two claims
    // race): its sends are part of "now" too.
    await Promise.all(this.running);
  }

  start(): void {
    this.timer = setInterval(() => {
      this.prune().catch((error: unknown) => {
        this.options.log.warn({ err: error }, 'account notices: could not prune');
      });
      void this.deliverDue();
    }, SWEEP_INTERVAL_MS);
    this.timer.unref();
    void this.deliverDue();
  }

  /**
   * Stops the sweeps and waits for the send in flight, at most CLOSE_WAIT_MS: a send still running then is
   * abandoned, and its row, claimed but not marked sent, goes out again once the claim expires.
   */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    let deadline: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(this.running),
      new Promise<void>((resolve) => {
        deadline = setTimeout(resolve, CLOSE_WAIT_MS);
        deadline.unref();
      }),
    ]);
    clearTimeout(deadline);
  }
}
