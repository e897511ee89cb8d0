/**
 * The one way the stores reach a database: plain SQL with `?` placeholders, written once for both dialects
 * (SQLite through better-sqlite3, PostgreSQL through pg). Where the dialects differ (JSON paths, arrays), a store
 * asks `dialect`; everything else is the SQL both engines accept (ON CONFLICT, RETURNING, IS DISTINCT FROM).
 *
 * Values: strings, numbers (integers come back as numbers in both: the PostgreSQL pool parses int8), null, and
 * Buffers. Booleans are stored as 0/1 integers in both schemas.
 */
export type Dialect = 'sqlite' | 'postgres';

export type SqlValue = string | number | null | Buffer;

export interface Sql {
  readonly dialect: Dialect;
  /** Every row of a query. */
  all<T>(text: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** The first row of a query, if any. */
  get<T>(text: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** A statement that changes rows; how many it changed. */
  run(text: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
  /**
   * A write transaction: `work` runs with an Sql bound to it, and every statement in it commits together or not
   * at all (a throw rolls back). Write transactions are serialised against each other, on every instance: SQLite's
   * BEGIN IMMEDIATE takes the file's write lock; PostgreSQL takes a transaction-scoped advisory lock first. So a
   * read-then-write inside one (count a throttle's events, then add one) sees no concurrent writer.
   * Inside a transaction, `transaction` runs `work` in the same one. Keep slow work (hashing, mail) outside.
   */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * A PostgreSQL transaction's write whose answer nobody reads (an INSERT, UPDATE or DELETE: no count, no rows):
   * held, and sent with the transaction's next statement or before its COMMIT, several in one statement (one round
   * trip). A failure fails that statement, so the transaction rolls back. Absent elsewhere: use `writeLater`.
   */
  readonly deferWrite?: (text: string, params: readonly SqlValue[]) => void;
  /**
   * PostgreSQL, outside a transaction: runs `work` (statements that are atomic alone and need no write lock) once
   * this instance's write transactions in flight have ended, in their queue, without a transaction of its own:
   * what one of them wrote is seen, at the cost of no BEGIN and COMMIT. Absent on SQLite and on a transaction's
   * Sql; never await it from inside a transaction's work (it would wait behind that transaction).
   */
  readonly afterWrites?: <T>(work: (sql: Sql) => Promise<T>) => Promise<T>;
}

/**
 * Runs a write whose answer the caller does not need: in a PostgreSQL transaction it travels with the next
 * statement (Sql.deferWrite); elsewhere it runs now. Within one transaction, what the write changes is seen by
 * every later statement on both engines.
 */
export async function writeLater(sql: Sql, text: string, params: readonly SqlValue[] = []): Promise<void> {
  if (sql.deferWrite) sql.deferWrite(text, params);
  else await sql.run(text, params);
}

/** The database a server opened: its Sql, the readiness probe, and closing. */
export interface Database extends Sql {
  /** Proves the database takes a write now; throws the driver's error when it does not. */
  probeWrite(now: number): Promise<void>;
  close(): Promise<void>;
}

/** `IN (?, ?, …)` for a list of values (an empty list matches nothing). Portable between the dialects. */
export function inList(values: readonly SqlValue[]): { text: string; params: SqlValue[] } {
  if (values.length === 0) return { text: 'IN (NULL)', params: [] };
  return { text: `IN (${values.map(() => '?').join(', ')})`, params: [...values] };
}

/** A unique constraint refused the write (SQLite's SQLITE_CONSTRAINT_UNIQUE / PRIMARYKEY, PostgreSQL's 23505). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}
