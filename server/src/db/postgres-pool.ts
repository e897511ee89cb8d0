/**
 * The PostgreSQL pool: its settings (bounded, failing fast), its type parsers (numbers and booleans as SQLite
 * gives them), and which errors mean a connection is gone.
 */
import pg from 'pg';

export interface PostgresOptions {
  /** postgres:// or postgresql:// URL (DATABASE_URL). */
  url: string;
  /** Most connections this instance opens (DATABASE_POOL_MAX). */
  poolMax: number;
  /** How long a request waits for a connection, new or pooled, before it fails (DATABASE_CONNECT_TIMEOUT_MS). */
  connectTimeoutMs: number;
  /** How long one statement may run on the server (DATABASE_STATEMENT_TIMEOUT_MS). */
  statementTimeoutMs: number;
  /** Where connection problems that belong to no request are reported (default: one line on stderr). */
  log?: (message: string, error?: unknown) => void;
}

const INT8_OID = 20;
const NUMERIC_OID = 1700;
const BOOL_OID = 16;

/**
 * This pool's type parsers (pg's global pg.types stay untouched): bigint and numeric (BIGINT columns, count(*),
 * sum()) come back as JS numbers, as SQLite's integers do; booleans (EXISTS, comparisons) as 1/0, as in SQLite.
 * Values in this schema (ms timestamps, counts) are far below 2^53.
 */
const portalTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (format !== 'binary') {
      if (oid === INT8_OID || oid === NUMERIC_OID) return (text: string) => Number(text);
      if (oid === BOOL_OID) return (text: string) => (text === 't' ? 1 : 0);
    }
    return format === undefined ? pg.types.getTypeParser(oid) : pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** The pool's settings: bounded, failing fast when the server is gone or hung. */
export function poolConfig(options: PostgresOptions): pg.PoolConfig {
  return {
    connectionString: options.url,
    max: options.poolMax,
    // Both a new connection and a wait for a busy pool's next free client give up after this.
    connectionTimeoutMillis: options.connectTimeoutMs,
    // The server cancels a statement past this (57014) …
    statement_timeout: options.statementTimeoutMs,
    // … and the client stops waiting a little later, for a server that does not answer at all (hung, cut off).
    query_timeout: options.statementTimeoutMs + Math.max(1000, options.connectTimeoutMs),
    // A transaction left open by a stuck instance would hold the write lock of every instance: the server ends it.
    idle_in_transaction_session_timeout: Math.max(10_000, options.statementTimeoutMs * 2),
    keepAlive: true,
    application_name: 'account-portal',
    types: portalTypes,
  };
}

/**
 * Errors after which a client's connection state is unknown (lost, timed out mid-query): it is destroyed rather
 * than sent ROLLBACK (which would wait behind the lost answer) and given back to the pool.
 */
export function connectionBroken(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  const code = (error as { code?: unknown } | null)?.code;
  return (
    /^(Query read timeout|Connection terminated|Client has encountered a connection error)/.test(message) ||
    (typeof code === 'string' && (/^(08|57P0)/.test(code) || /^E[A-Z]+$/.test(code)))
  );
}

/**
 * The server ended this connection (shutdown, restart, pg_terminate_backend) before running the statement: a
 * pooled connection that was idle when its server went away, whose notice had not arrived yet. Such a statement
 * did not run, so it is sent again; the pool has dropped that connection, and after at most one try per idle
 * connection (poolMax) the next one is new.
 */
export function endedBeforeRunning(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '57P01' || code === '57P02';
}
