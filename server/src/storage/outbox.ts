/**
 * The outbox's rows (migration 006's `notifications`): notices to account holders waiting to be sent, sent, or
 * given up; the interface and its SQL. The outbox that queues and sends them: notifications/outbox.ts.
 */
import { isSealed, type SecretBox } from '../crypto/secret-box.js';
import { writeLater, type Sql } from '../db/sql.js';

/** A notice to queue. `secret`: its text holds a secret (a reset link): sealed until sent, then wiped. */
export interface NewNotice {
  userId: string;
  to: string;
  subject: string;
  text: string;
  secret?: boolean | undefined;
}

/** A secret text's additional data: its row's user and subject, so it opens on no other row. */
const secretContext = (userId: string, subject: string) => `notification:${userId}:${subject}`;

/** A notice claimed for sending. */
export interface ClaimedNotice {
  id: number;
  user_id: string;
  to_address: string;
  subject: string;
  text: string;
  /** Sends tried so far, this one included. */
  attempts: number;
}

/** The outbox's rows: notices waiting to be sent, sent, or given up. */
export interface OutboxStore {
  /**
   * Adds a notice, due at `now`. Run it inside the transaction of the change the notice is about, so the change
   * and its notice commit together.
   */
  add(notice: NewNotice, now: number): Promise<void>;
  /**
   * Claims up to `batch` due notices (tried fewer than `maxAttempts` times) for `claimMs`, in one atomic step for
   * every process that shares the storage, so two senders never take the same notice while its claim lasts.
   */
  claimDue(now: number, claimMs: number, maxAttempts: number, batch: number): Promise<ClaimedNotice[]>;
  /** Records the send; a secret text is wiped then. */
  markSent(id: number, now: number): Promise<void>;
  /** Records a failed send; the notice is due again at `nextAttemptAt`. */
  markFailed(id: number, nextAttemptAt: number, error: string): Promise<void>;
  /** Gives a claimed, unsent notice back (its attempt does not count), due at `now`. */
  release(id: number, now: number): Promise<void>;
  /** Whether a notice with this subject was added for the user since `since` (ms). */
  addedSince(userId: string, subject: string, since: number): Promise<boolean>;
  /** Deletes notices added before `before` that were sent or tried `maxAttempts` times; returns how many. */
  prune(before: number, maxAttempts: number): Promise<number>;
}

/**
 * The outbox (migration 006's `notifications`) over `Sql`. A secret text is sealed with `secrets` (the at-rest key,
 * storage/sealing.ts): a copy of the database holds no live reset link.
 */
export class SqlOutboxStore implements OutboxStore {
  constructor(
    private readonly sql: Sql,
    private readonly secrets: SecretBox,
  ) {}

  async add(notice: NewNotice, now: number): Promise<void> {
    const text = notice.secret
      ? this.secrets.seal(notice.text, secretContext(notice.userId, notice.subject))
      : notice.text;
    // In the change's transaction it rides with the next statement (db/sql.ts writeLater).
    await writeLater(
      this.sql,
      `INSERT INTO notifications (user_id, to_address, subject, text, created_at, next_attempt_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
      [notice.userId, notice.to, notice.subject, text, now, now],
    );
  }

  /** A claimed row's text as sent: a sealed one opened (notice texts begin with words, never with `v1.`). */
  private textOf(row: ClaimedNotice): string {
    return isSealed(row.text)
      ? this.secrets.open(row.text, secretContext(row.user_id, row.subject))
      : row.text;
  }

  claimDue(now: number, claimMs: number, maxAttempts: number, batch: number): Promise<ClaimedNotice[]> {
    if (this.sql.afterWrites) {
      // PostgreSQL: one statement, no transaction (one round trip instead of three). It runs after this instance's
      // transactions in flight (a kick from a change's transaction sees its notice); rows another sender holds
      // are skipped, and a row is taken only if still due once locked, so two senders never take one row.
      const due = 'sent_at IS NULL AND next_attempt_at <= ? AND attempts < ?';
      return this.sql.afterWrites(async (sql) =>
        this.claimed(
          await sql.all<ClaimedNotice>(
            `UPDATE notifications SET attempts = attempts + 1, next_attempt_at = ?
             WHERE ${due} AND id IN (
               SELECT id FROM notifications WHERE ${due}
               ORDER BY next_attempt_at, id LIMIT ? FOR UPDATE SKIP LOCKED)
             RETURNING id, user_id, to_address, subject, text, attempts`,
            [now + claimMs, now, maxAttempts, now, maxAttempts, batch],
          ),
        ),
      );
    }
    // A write transaction: serialised with every other sender's, so two never both see a row as due; and a kick
    // from inside a change's transaction claims after that one commits (it waits for the write lock). One
    // statement in it (RETURNING gives the attempts after the bump, this one included).
    /* v8 ignore start -- @preserve SQLite's path: the sqlite project runs it; the postgres coverage guard skips it. */
    return this.sql.transaction(async (tx) => {
      const rows = await tx.all<ClaimedNotice>(
        `UPDATE notifications SET attempts = attempts + 1, next_attempt_at = ?
         WHERE id IN (
           SELECT id FROM notifications WHERE sent_at IS NULL AND next_attempt_at <= ? AND attempts < ?
           ORDER BY next_attempt_at, id LIMIT ?)
         RETURNING id, user_id, to_address, subject, text, attempts`,
        [now + claimMs, now, maxAttempts, batch],
      );
      return this.claimed(rows);
    });
    /* v8 ignore stop -- @preserve */
  }

  /** Claimed rows in the order they were due (they now share one next_attempt_at; ids grow with time), opened. */
  private claimed(rows: ClaimedNotice[]): ClaimedNotice[] {
    return rows.sort((a, b) => a.id - b.id).map((row) => ({ ...row, text: this.textOf(row) }));
  }

  async markSent(id: number, now: number): Promise<void> {
    // A sealed (secret) text is not kept once sent.
    await this.sql.run(
      `UPDATE notifications SET sent_at = ?, last_error = NULL,
         text = CASE WHEN substr(text, 1, 3) = 'v1.' THEN '' ELSE text END
       WHERE id = ?`,
      [now, id],
    );
  }

  async markFailed(id: number, nextAttemptAt: number, error: string): Promise<void> {
    await this.sql.run('UPDATE notifications SET next_attempt_at = ?, last_error = ? WHERE id = ?', [
      nextAttemptAt,
      error,
      id,
    ]);
  }

  async release(id: number, now: number): Promise<void> {
    await this.sql.run(
      'UPDATE notifications SET attempts = attempts - 1, next_attempt_at = ? WHERE id = ? AND sent_at IS NULL',
      [now, id],
    );
  }

  async addedSince(userId: string, subject: string, since: number): Promise<boolean> {
    const row = await this.sql.get(
      'SELECT 1 AS found FROM notifications WHERE user_id = ? AND subject = ? AND created_at >= ? LIMIT 1',
      [userId, subject, since],
    );
    return row !== undefined;
  }

  async prune(before: number, maxAttempts: number): Promise<number> {
    const { changes } = await this.sql.run(
      'DELETE FROM notifications WHERE created_at < ? AND (sent_at IS NOT NULL OR attempts >= ?)',
      [before, maxAttempts],
    );
    return changes;
  }
}
