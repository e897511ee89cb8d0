import type BetterSqlite3 from 'better-sqlite3';
import { openDatabase, SERVING_BUSY_TIMEOUT_MS, type OpenOptions } from './connection.js';
import type { Database, Sql, SqlValue } from './sql.js';

type Statement = BetterSqlite3.Statement<SqlValue[]>;

/**
 * `Sql` over one better-sqlite3 connection. Statements run synchronously (the promise is already settled when
 * returned), prepared once per text. A transaction holds the connection from BEGIN IMMEDIATE to COMMIT across
 * awaits, so every statement from outside it waits until it ends: otherwise another request's statement would
 * run inside it (and roll back with it).
 */
export class SqliteDatabase implements Database {
  readonly dialect = 'sqlite' as const;
  private readonly statements = new Map<string, Statement>();
  /** Settles when the running transaction (and every one queued behind it) has ended. */
  private busy: Promise<void> | undefined;
  private readonly bound: Sql;

  constructor(readonly connection: BetterSqlite3.Database) {
    const run = (text: string, params: readonly SqlValue[]) => this.statement(text).run(...params);
    const bound: Sql = {
      dialect: 'sqlite',
      all: (text, params = []) => settle(() => this.statement(text).all(...params) as never),
      get: (text, params = []) => settle(() => this.statement(text).get(...params) as never),
      run: (text, params = []) => settle(() => ({ changes: run(text, params).changes })),
      transaction: (work) => work(bound),
    };
    this.bound = bound;
  }

  private statement(text: string): Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.connection.prepare<SqlValue[]>(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  private async afterTransactions<T>(work: () => Promise<T>): Promise<T> {
    while (this.busy) await this.busy;
    return work();
  }

  all<T>(text: string, params: readonly SqlValue[] = []): Promise<T[]> {
    if (this.busy) return this.afterTransactions(() => this.bound.all<T>(text, params));
    return this.bound.all<T>(text, params);
  }

  get<T>(text: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    if (this.busy) return this.afterTransactions(() => this.bound.get<T>(text, params));
    return this.bound.get<T>(text, params);
  }

  run(text: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    if (this.busy) return this.afterTransactions(() => this.bound.run(text, params));
    return this.bound.run(text, params);
  }

  async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    while (this.busy) await this.busy;
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    this.busy = ended;
    try {
      // IMMEDIATE: the write lock from the start, so another process (the directory CLI) cannot slip a write
      // between this transaction's reads and writes; it waits up to busy_timeout, then SQLITE_BUSY.
      this.statement('BEGIN IMMEDIATE').run();
      try {
        const result = await work(this.bound);
        this.statement('COMMIT').run();
        return result;
      } catch (error) {
        if (this.connection.inTransaction) this.statement('ROLLBACK').run();
        throw error;
      }
    } finally {
      this.busy = undefined;
      end();
    }
  }

  async probeWrite(now: number): Promise<void> {
    await this.transaction((tx) =>
      tx.run(
        `INSERT INTO meta (key, value) VALUES ('readiness_probe', ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [new Date(now).toISOString()],
      ),
    );
  }

  async close(): Promise<void> {
    while (this.busy) await this.busy;
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
 * Opens (and migrates) DATA_DIR's SQLite file as an `Sql`. Start-up waits for another process's write lock;
 * `serving` shortens the wait once requests are answered (a locked database answers 503, see db/errors.ts).
 */
export function openSqlite(dataDir: string, options: OpenOptions = {}): SqliteDatabase {
  return new SqliteDatabase(openDatabase(dataDir, options));
}

export function useServingBusyTimeout(database: SqliteDatabase): void {
  database.connection.pragma(`busy_timeout = ${SERVING_BUSY_TIMEOUT_MS}`);
}
