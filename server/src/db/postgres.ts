import pg from 'pg';
import { postgresMigrations, type PostgresMigration } from './postgres-migrations/index.js';
import type { Database, Sql, SqlValue } from './sql.js';

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

/**
 * Advisory lock keys (bigint, "portal" in ASCII then a number). Every write transaction of every instance takes
 * WRITE_LOCK_KEY first, so they run one at a time like SQLite's BEGIN IMMEDIATE; migrations take their own key so a
 * starting instance never waits behind (or holds up) the writes of running ones.
 */
export const WRITE_LOCK_KEY = '8101820098839052289';
export const MIGRATION_LOCK_KEY = '8101820098839052290';

/** Start-up only, nothing is served yet: a migration (or another instance's) may take this long per statement. */
export const MIGRATION_STATEMENT_TIMEOUT_MS = 60_000;

const BEGIN_WRITE = `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`;

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

/**
 * `?` placeholders to PostgreSQL's `$1..$n`, in order. A `?` inside a string literal ('…', E'…'), a quoted name
 * ("…"), a dollar-quoted string ($tag$…$tag$) or a comment is left alone.
 */
export function toPostgresPlaceholders(text: string): string {
  let out = '';
  let index = 0;
  let count = 0;
  while (index < text.length) {
    const char = text[index] as string;
    const next = text[index + 1];
    let end = index + 1;
    if (char === '?') {
      count += 1;
      out += `$${count}`;
      index = end;
      continue;
    }
    if (char === "'") {
      // E'…' strings take backslash escapes; '' is a quote inside any string.
      const escapes = /[eE]/.test(text[index - 1] ?? '') && !/[\w$]/.test(text[index - 2] ?? '');
      while (end < text.length) {
        const c = text[end];
        if (escapes && c === '\\') end += 2;
        else if (c === "'" && text[end + 1] === "'") end += 2;
        else if (c === "'") {
          end += 1;
          break;
        } else end += 1;
      }
    } else if (char === '"') {
      const close = text.indexOf('"', end);
      end = close === -1 ? text.length : close + 1;
    } else if (char === '-' && next === '-') {
      const close = text.indexOf('\n', end);
      end = close === -1 ? text.length : close + 1;
    } else if (char === '/' && next === '*') {
      const close = text.indexOf('*/', end + 1);
      end = close === -1 ? text.length : close + 2;
    } else if (char === '$') {
      const tag = /^\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/.exec(text.slice(index))?.[0];
      if (tag && !/[\w$]/.test(text[index - 1] ?? '')) {
        const close = text.indexOf(tag, index + tag.length);
        end = close === -1 ? text.length : close + tag.length;
      }
    }
    out += text.slice(index, end);
    index = end;
  }
  return out;
}

/**
 * Each SQL text is translated once and becomes a named prepared statement: each connection parses and plans it on
 * first use only (measured on loopback: 140-160 us a statement instead of 320-360 us unnamed). The stores' texts are
 * constants, plus `IN (?, …)` lists of a few lengths; the cap only guards against texts built with values in them.
 */
const STATEMENTS_CAP = 2000;
const statements = new Map<string, { text: string; id: number }>();
let nextStatementId = 1;

function statementOf(text: string): { text: string; id: number } {
  let statement = statements.get(text);
  if (statement === undefined) {
    // Ids are never reused (even after the cap clears the map): one name, one text, on every connection.
    statement = { text: toPostgresPlaceholders(text), id: nextStatementId++ };
    if (statements.size >= STATEMENTS_CAP) statements.clear();
    statements.set(text, statement);
  }
  return statement;
}

/**
 * A prepared `SELECT *` whose table gained a column (another instance migrated during a rolling deploy): the
 * server refuses it rather than change its result. The statement did not run.
 */
function stalePlan(error: unknown): boolean {
  return (
    (error as { code?: unknown } | null)?.code === '0A000' &&
    error instanceof Error &&
    error.message.includes('cached plan must not change result type')
  );
}

type Query = (text: string, params: readonly SqlValue[]) => Promise<pg.QueryResult>;

/** A queryable (the pool, or one transaction's client): pg's QueryResult as the Sql interface's answers. */
function sqlOver(query: Query, transaction: Sql['transaction']): Sql {
  return {
    dialect: 'postgres',
    async all<T>(text: string, params: readonly SqlValue[] = []) {
      return (await query(text, params)).rows as T[];
    },
    async get<T>(text: string, params: readonly SqlValue[] = []) {
      return (await query(text, params)).rows[0] as T | undefined;
    },
    async run(text: string, params: readonly SqlValue[] = []) {
      return { changes: (await query(text, params)).rowCount ?? 0 };
    },
    transaction,
  };
}

/** `generation` is part of the name: a new one makes every connection prepare the statement afresh. */
function queryConfig(text: string, params: readonly SqlValue[], generation: number): pg.QueryConfig {
  const statement = statementOf(text);
  return { name: `portal_${generation}_${statement.id}`, text: statement.text, values: params as SqlValue[] };
}

/**
 * Errors after which a client's connection state is unknown (lost, timed out mid-query): it is destroyed rather
 * than sent ROLLBACK (which would wait behind the lost answer) and given back to the pool.
 */
function connectionBroken(error: unknown): boolean {
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
function endedBeforeRunning(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '57P01' || code === '57P02';
}

const stderrLog = (message: string, error?: unknown) => {
  const detail = error instanceof Error ? `: ${error.message}` : '';
  process.stderr.write(`${message}${detail}\n`);
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
 * One write transaction of this instance at a time, in arrival order; a waiter that has waited `maxWaitMs` gives
 * up with pg's own message for a connection that was not free in time (db/errors.ts: 503 with Retry-After).
 */
export class WriteGate {
  private busy = false;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly maxWaitMs: number) {}

  /** How many transactions wait for their turn (not counting the one running). */
  get queued(): number {
    return this.waiting.length;
  }

  enter(): Promise<() => void> {
    const release = () => {
      const next = this.waiting.shift();
      if (next) next();
      else this.busy = false;
    };
    if (!this.busy) {
      this.busy = true;
      return Promise.resolve(release);
    }
    return new Promise((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve(release);
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(turn);
        if (index < 0) return;
        this.waiting.splice(index, 1);
        reject(new Error('timeout exceeded when trying to connect'));
      }, this.maxWaitMs);
      this.waiting.push(turn);
    });
  }
}

/**
 * Opens a bounded pool on `options.url`, applies the migrations this code has that the database lacks (under
 * the migration lock), and returns the Database. Fails (and closes the pool) when the server cannot be reached
 * or the database is newer than this code.
 */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const log = options.log ?? stderrLog;
  const pool = new pg.Pool(poolConfig(options));
  // An idle client whose server went away (restart, failover) emits 'error'; pg removes it from the pool and the
  // next query opens a new connection. Without a listener, that event would end the process.
  pool.on('error', (error) => log('PostgreSQL: an idle connection failed; the pool replaces it', error));
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }

  // Bumped when a prepared statement went stale (stalePlan): from then on, statements are prepared again.
  let generation = 0;

  // Every idle connection may have been ended, and one more try on a new one.
  const tries = options.poolMax + 1;

  const onPool: Query = async (text, params) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await pool.query(queryConfig(text, params, generation));
      } catch (error) {
        if (attempt >= tries) throw error;
        // The statement did not run: again, under a new name or on another connection.
        if (stalePlan(error)) generation += 1;
        else if (!endedBeforeRunning(error)) throw error;
      }
    }
  };

  // Write transactions run one at a time on every instance (the advisory lock), so a second one of this instance
  // would only hold a pooled connection while it waits for the lock: a burst of writes would take every connection
  // and starve the reads. They wait here instead, holding no connection, at most as long as a request would wait
  // for a connection and for its statement.
  const writeGate = new WriteGate(options.connectTimeoutMs + options.statementTimeoutMs);

  async function transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    const release = await writeGate.enter();
    try {
      return await transactionOnClient(work);
    } finally {
      release();
    }
  }

  async function transactionOnClient<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const client = await pool.connect();
      // A checked-out client has no listener of the pool's: a connection lost during the transaction would emit
      // an unhandled 'error' and end the process.
      let broken: unknown;
      const onError = (error: unknown) => {
        broken ??= error;
        log('PostgreSQL: the connection of a transaction failed', error);
      };
      client.on('error', onError);
      let begun = false;
      try {
        await client.query(BEGIN_WRITE);
        begun = true;
        const onClient: Query = async (text, params) => {
          try {
            return await client.query(queryConfig(text, params, generation));
          } catch (error) {
            // The transaction is spoilt (it fails, as a concurrent write conflict would); the next are not.
            if (stalePlan(error)) generation += 1;
            throw error;
          }
        };
        // Nested: the same transaction.
        const tx: Sql = sqlOver(onClient, (inner) => inner(tx));
        const result = await work(tx);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        if (broken === undefined && connectionBroken(error)) broken = error;
        if (!begun && attempt < tries && endedBeforeRunning(error)) {
          broken = error;
          continue;
        }
        if (broken === undefined) {
          try {
            await client.query('ROLLBACK');
          } catch (rollbackError) {
            broken = rollbackError;
          }
        }
        throw error;
      } finally {
        client.off('error', onError);
        // true: the client is destroyed, not reused.
        client.release(broken !== undefined);
      }
    }
  }

  const sql = sqlOver(onPool, transaction);
  let closing: Promise<void> | undefined;
  return {
    ...sql,
    async probeWrite(now: number) {
      await transaction((tx) =>
        tx.run(
          `INSERT INTO meta (key, value) VALUES ('readiness_probe', ?)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
          [new Date(now).toISOString()],
        ),
      );
    },
    close() {
      closing ??= pool.end();
      return closing;
    },
  };
}

/**
 * Applies the migrations the database has not seen yet, all in one transaction under the migration lock: instances
 * starting together run them once, the others wait and then find nothing to do. Versions applied are rows of
 * schema_migrations (version N = migration N, 1-based, with its name). A database newer than this code, or one
 * whose applied migrations have other names, is refused rather than guessed at. Returns the schema version.
 */
export async function migratePostgres(
  target: pg.Pool | pg.ClientBase,
  migrations: readonly PostgresMigration[] = postgresMigrations,
): Promise<number> {
  const client = target instanceof pg.Pool ? await target.connect() : target;
  let failed = false;
  try {
    await client.query(
      `BEGIN;
       SET LOCAL statement_timeout = ${MIGRATION_STATEMENT_TIMEOUT_MS};
       SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY});
       CREATE TABLE IF NOT EXISTS schema_migrations (
         version    INTEGER PRIMARY KEY,
         name       TEXT NOT NULL,
         applied_at BIGINT NOT NULL
       )`,
    );
    const applied = (
      await client.query<{ version: number; name: string }>(
        'SELECT version, name FROM schema_migrations ORDER BY version',
      )
    ).rows;
    const current = applied.at(-1)?.version ?? 0;
    if (current > migrations.length) {
      throw new Error(
        `The database schema is version ${current}, newer than this server knows (${migrations.length}). ` +
          'Run a newer server or restore a backup.',
      );
    }
    for (const row of applied) {
      const known = migrations[row.version - 1]?.name;
      if (known !== row.name) {
        throw new Error(
          `The database's migration ${row.version} is "${row.name}", but this server's is "${known ?? 'none'}": ` +
            'it was made by another version of the portal.',
        );
      }
    }
    for (let version = current + 1; version <= migrations.length; version += 1) {
      const migration = migrations[version - 1] as PostgresMigration;
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        version,
        migration.name,
        Date.now(),
      ]);
    }
    await client.query('COMMIT');
    return migrations.length;
  } catch (error) {
    failed = true;
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    if (target instanceof pg.Pool) (client as pg.PoolClient).release(failed);
  }
}
