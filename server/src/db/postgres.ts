/**
 * The PostgreSQL database: `Sql` over a pool (db/postgres-pool.ts), each text a named prepared statement with `$n`
 * placeholders (db/postgres-placeholders.ts), write transactions one at a time (db/postgres-write-gate.ts) whose
 * unanswered writes ride with their next statement (db/postgres-deferred-writes.ts), migrated on opening
 * (db/migrate-postgres.ts).
 */
import pg from 'pg';
import { migratePostgres } from './migrate-postgres.js';
import { toPostgresPlaceholders } from './postgres-placeholders.js';
import { connectionBroken, endedBeforeRunning, poolConfig, type PostgresOptions } from './postgres-pool.js';
import { DeferredWrites } from './postgres-deferred-writes.js';
import { BEGIN_WRITE, WriteGate } from './postgres-write-gate.js';
import type { Database, Sql, SqlValue } from './sql.js';

export type { PostgresOptions };

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
function sqlOver(query: Query, transaction: Sql['transaction'], deferWrite?: Sql['deferWrite']): Sql {
  return {
    dialect: 'postgres',
    ...(deferWrite && { deferWrite }),
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

const stderrLog = (message: string, error?: unknown) => {
  const detail = error instanceof Error ? `: ${error.message}` : '';
  process.stderr.write(`${message}${detail}\n`);
};

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
        const send: Query = async (text, params) => {
          try {
            return await client.query(queryConfig(text, params, generation));
          } catch (error) {
            // The transaction is spoilt (it fails, as a concurrent write conflict would); the next are not.
            if (stalePlan(error)) generation += 1;
            throw error;
          }
        };
        // Writes nobody waits for ride with the next statement (db/postgres-deferred-writes.ts).
        const held = new DeferredWrites();
        const onClient: Query = async (text, params) => {
          const { first, next } = held.before({ text, params });
          for (const statement of first) await send(statement.text, statement.params);
          return send(next.text, next.params);
        };
        // Nested: the same transaction.
        const tx: Sql = sqlOver(
          onClient,
          (inner) => inner(tx),
          (text, params) => held.add(text, params),
        );
        const result = await work(tx);
        for (const statement of held.drain()) await send(statement.text, statement.params);
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

  const pooled = sqlOver(onPool, transaction);
  const sql: Sql = {
    ...pooled,
    // In the write gate's queue, holding no connection while it waits, and no transaction once its turn comes.
    async afterWrites(work) {
      const release = await writeGate.enter();
      try {
        return await work(pooled);
      } finally {
        release();
      }
    },
  };
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
