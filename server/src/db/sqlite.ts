import type BetterSqlite3 from 'better-sqlite3';
import {
  openDatabase,
  READINESS_LOCK_WAIT_MS,
  SERVING_LOCK_WAIT_MS,
  type OpenOptions,
} from './connection.js';
import type { Database, Sql, SqlValue } from './sql.js';

type Statement = BetterSqlite3.Statement<SqlValue[]>;

/** The first pause before trying another process's write lock again; it doubles up to the longest. */
const FIRST_RETRY_MS = 1;
const LONGEST_RETRY_MS = 8;

/** SQLITE_BUSY and its extended codes: another connection holds a lock this one needs; nothing was done. */
function isLockBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * `Sql` over one better-sqlite3 connection. Statements run synchronously, prepared once per text. A transaction
 * holds the connection from BEGIN IMMEDIATE to COMMIT across awaits, so every statement from outside it waits until
 * it ends: otherwise another request's statement would run inside it (and roll back with it).
 *
 * Another process's write lock (the directory CLI, a backup): once serving, the connection's busy_timeout is 0 and
 * a statement or a BEGIN that finds the lock taken is tried again on a timer (1, 2, 4, 8, 8… ms) for up to
 * SERVING_LOCK_WAIT_MS, then fails with SQLITE_BUSY (503). So the wait never blocks the event loop. Only what wrote
 * nothing is tried again: a BEGIN IMMEDIATE (the transaction's work has not run yet), or a statement outside a
 * transaction (SQLITE_BUSY means it changed nothing). A statement inside a transaction already holds the lock and
 * is never tried again; a transaction's work runs once.
 */
export class SqliteDatabase implements Database {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, Statement>();
  /** Settles when the running transaction (and every one queued behind it) has ended. */
  private busy: Promise<void> | undefined;
  private readonly bound: Sql;
  /** How long a lock wait lasts by retries: 0 until serving (busy_timeout waits then, synchronously). */
  private lockWaitMs = 0;
  /** The pauses running now between tries of the lock: close() lets them end first. */
  private readonly pauses = new Set<Promise<void>>();
  private closing = false;

  constructor(readonly connection: BetterSqlite3.Database) {
    const bound: Sql = {
      dialect: 'sqlite',
      all: (text, params = []) => settle(() => this.statement(text).all(...params) as never),
      get: (text, params = []) => settle(() => this.statement(text).get(...params) as never),
      run: (text, params = []) => settle(() => ({ changes: this.statement(text).run(...params).changes })),
      transaction: (work) => work(bound),
    };
    this.bound = bound;
  }

  /** How many statements and transactions are pausing now before trying another process's lock again. */
  get waitingForLock(): number {
    return this.pauses.size;
  }

  /** From the moment requests are served: lock waits are asynchronous retries, never busy_timeout. */
  serve(lockWaitMs = SERVING_LOCK_WAIT_MS): void {
    this.connection.pragma('busy_timeout = 0');
    this.lockWaitMs = lockWaitMs;
  }

  private statement(text: string): Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.connection.prepare<SqlValue[]>(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /**
   * Runs `attempt` (synchronous, and it must change nothing when it fails with SQLITE_BUSY) once no transaction of
   * this connection is open, again after a pause while another process holds the lock, for up to `waitMs` from
   * the first refusal. The check for an open transaction and the attempt run in the same tick, so a statement
   * that paused never lands in a transaction begun meanwhile.
   */
  private async whenLockFree<T>(attempt: () => T, waitMs: number): Promise<T> {
    let deadline: number | undefined;
    let pause = FIRST_RETRY_MS;
    for (;;) {
      while (this.busy) await this.busy;
      try {
        return attempt();
      } catch (error) {
        if (!isLockBusy(error) || this.closing) throw error;
        deadline ??= performance.now() + waitMs;
        const left = deadline - performance.now();
        if (left <= 0) throw error;
        await this.pauseFor(Math.min(pause, left));
        // Closed while it paused: give up rather than meet a closed connection.
        if (this.closing) throw error;
        pause = Math.min(pause * 2, LONGEST_RETRY_MS);
      }
    }
  }

  private async pauseFor(ms: number): Promise<void> {
    const paused = new Promise<void>((resolve) => setTimeout(resolve, ms));
    this.pauses.add(paused);
    try {
      await paused;
    } finally {
      this.pauses.delete(paused);
    }
  }

  all<T>(text: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.whenLockFree(() => this.statement(text).all(...params) as T[], this.lockWaitMs);
  }

  get<T>(text: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.whenLockFree(() => this.statement(text).get(...params) as T | undefined, this.lockWaitMs);
  }

  run(text: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    return this.whenLockFree(
      () => ({ changes: this.statement(text).run(...params).changes }),
      this.lockWaitMs,
    );
  }

  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.writeTransaction(work, this.lockWaitMs);
  }

  private async writeTransaction<T>(work: (tx: Sql) => Promise<T>, lockWaitMs: number): Promise<T> {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    // IMMEDIATE: the write lock from the start, so another process (the directory CLI) cannot slip a write
    // between this transaction's reads and writes. Only the BEGIN is tried again: `work` has not run yet.
    await this.whenLockFree(() => {
      this.statement('BEGIN IMMEDIATE').run();
      this.busy = ended;
    }, lockWaitMs);
    try {
      const result = await work(this.bound);
      this.statement('COMMIT').run();
      return result;
    } catch (error) {
      if (this.connection.inTransaction) this.statement('ROLLBACK').run();
      throw error;
    } finally {
      this.busy = undefined;
      end();
    }
  }

  /** The readiness probe's write: it waits READINESS_LOCK_WAIT_MS for the lock, so /readyz answers fast. */
  async probeWrite(now: number): Promise<void> {
    await this.writeTransaction(
      (tx) =>
        tx.run(
          `INSERT INTO meta (key, value) VALUES ('readiness_probe', ?)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [new Date(now).toISOString()],
        ),
      READINESS_LOCK_WAIT_MS,
    );
  }

  async close(): Promise<void> {
    // A pausing statement gives up when its pause ends (SQLITE_BUSY, a 503) instead of meeting a closed connection.
    this.closing = true;
    while (this.busy || this.pauses.size > 0) await Promise.all([this.busy, ...this.pauses]);
    this.connection.close();
  }
}

/** A synchronous statement as a settled promise (a throw becomes a rejection). */
function settle<T>(statement: () => T): Promise<T> {
  try {
    return Promise.resolve(statement());
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/**
 * Opens (and migrates) DATA_DIR's SQLite file as an `Sql`. Start-up waits for another process's write lock with
 * busy_timeout (nothing is served yet); `serving` makes the wait asynchronous and short once requests are answered
 * (a locked database answers 503, see db/errors.ts).
 */
export function openSqlite(dataDir: string, options: OpenOptions = {}): SqliteDatabase {
  return new SqliteDatabase(openDatabase(dataDir, options));
}

/** The server serves from now on: see SqliteDatabase.serve. (Named for the busy_timeout it replaces.) */
export function useServingBusyTimeout(database: SqliteDatabase): void {
  database.serve();
}
