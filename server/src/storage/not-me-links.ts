/**
 * "This wasn't me" links (migration 018's `not_me_links`): the interface and its SQL. Only the token's SHA-256 is
 * stored; the rules (lifetime, what a link removes, what it does) are devices/not-me-links.ts's, the statements
 * here make single use one atomic step.
 */
import type { Sql } from '../db/sql.js';

/** The 2-step method a link removes: a factor by name, or a passkey. */
export type NotMeLinkMethod = 'googleAuth' | 'email' | 'passkey';

/** A live link as stored (never the token itself). */
export interface NotMeLinkRecord {
  tokenHash: string;
  userId: string;
  method: NotMeLinkMethod;
  /** Which instance of the method: a factor's activation time (ISO), a passkey's id. */
  instance: string;
  createdAt: number;
  expiresAt: number;
}

export interface NotMeLinkStore {
  /** Stores a new link: run it in the transaction that queues its mail. */
  issue(record: NotMeLinkRecord): Promise<void>;
  /** The link of this token hash, when it has not expired at `now`. */
  find(tokenHash: string, now: number): Promise<NotMeLinkRecord | undefined>;
  /**
   * Uses the link: deletes it when it is still there and unexpired at `now`, and answers it; undefined when it
   * was not (so a link acts once, even for two racing posts).
   */
  take(tokenHash: string, now: number): Promise<NotMeLinkRecord | undefined>;
  /** Deletes the links expired at `now`; returns how many. */
  prune(now: number): Promise<number>;
}

interface Row {
  token_hash: string;
  user_id: string;
  method: NotMeLinkMethod;
  instance: string;
  created_at: number | string;
  expires_at: number | string;
}

function toRecord(row: Row): NotMeLinkRecord {
  return {
    tokenHash: row.token_hash,
    userId: row.user_id,
    method: row.method,
    instance: row.instance,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}

/** "This wasn't me" links (migration 018) over `Sql`. */
export class SqlNotMeLinkStore implements NotMeLinkStore {
  constructor(private readonly sql: Sql) {}

  async issue(record: NotMeLinkRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO not_me_links (token_hash, user_id, method, instance, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?)`,
      [record.tokenHash, record.userId, record.method, record.instance, record.createdAt, record.expiresAt],
    );
  }

  async find(tokenHash: string, now: number): Promise<NotMeLinkRecord | undefined> {
    const row = await this.sql.get<Row>(
      'SELECT * FROM not_me_links WHERE token_hash = ? AND expires_at > ?',
      [tokenHash, now],
    );
    return row && toRecord(row);
  }

  async take(tokenHash: string, now: number): Promise<NotMeLinkRecord | undefined> {
    const row = await this.sql.get<Row>(
      'DELETE FROM not_me_links WHERE token_hash = ? AND expires_at > ? RETURNING *',
      [tokenHash, now],
    );
    return row && toRecord(row);
  }

  async prune(now: number): Promise<number> {
    return (await this.sql.run('DELETE FROM not_me_links WHERE expires_at <= ?', [now])).changes;
  }
}
