import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite from 'better-sqlite3';
import Fastify from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ERROR_CODES } from 'shared-auth/contract';
import { isStorageUnavailableError, storageUnavailableReason } from '../src/db/errors.js';
import { STORAGE_RETRY_AFTER_SECONDS, STORAGE_UNAVAILABLE_MESSAGE } from '../src/http/storage-unavailable.js';
import errorsPlugin from '../src/plugins/errors.js';
import { createTestDatabase, type TestDatabase } from './support/postgres.js';

/** An error shaped as the driver makes it: message plus the fields it sets. */
function driverError(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

/** What `work` throws (it must throw). */
function errorOf(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

/** pg's DatabaseError carries the SQLSTATE in `code` and a severity. */
const postgresError = (code: string) => driverError(`server said ${code}`, { code, severity: 'ERROR' });

describe('storageUnavailableReason', () => {
  it.each([
    ['SQLITE_BUSY', 'another process holds its write lock'],
    ['SQLITE_BUSY_SNAPSHOT', 'another process holds its write lock'],
    ['SQLITE_LOCKED', 'another process holds its write lock'],
    ['SQLITE_FULL', 'the disk is full'],
    ['SQLITE_READONLY', 'the database or its folder is read-only'],
    ['SQLITE_READONLY_DBMOVED', 'the database or its folder is read-only'],
    ['SQLITE_CANTOPEN', 'the database or its folder is read-only'],
    ['SQLITE_IOERR_FSYNC', 'a disk I/O error happened'],
  ])('calls SQLite %s unavailable: %s', (code, reason) => {
    expect(storageUnavailableReason(driverError('sqlite', { code }))).toBe(reason);
  });

  it.each([
    ['08006', 'the connection to the database failed'],
    ['08001', 'the connection to the database failed'],
    ['53300', 'the database has no free connection'],
    ['53100', 'the disk is full'],
    ['53200', 'the database is out of resources'],
    ['57P01', 'the database is shutting down'],
    ['57P02', 'the database is shutting down'],
    ['57P03', 'the database is starting up or shutting down'],
    ['57014', 'a statement ran out of time (statement_timeout)'],
    ['40001', 'a concurrent transaction conflicted with this one'],
    ['40P01', 'transactions deadlocked'],
    ['25006', 'the database is read-only'],
  ])('calls PostgreSQL SQLSTATE %s unavailable: %s', (code, reason) => {
    expect(storageUnavailableReason(postgresError(code))).toBe(reason);
  });

  it.each([
    ['ECONNREFUSED', 'the database cannot be reached (ECONNREFUSED)'],
    ['ECONNRESET', 'the database cannot be reached (ECONNRESET)'],
    ['ETIMEDOUT', 'the database cannot be reached (ETIMEDOUT)'],
  ])('calls a socket error %s unavailable', (code, reason) => {
    expect(
      storageUnavailableReason(driverError(`connect ${code} 127.0.0.1:5432`, { code, errno: -111 })),
    ).toBe(reason);
  });

  it("recognises pg's own errors, which carry no code", () => {
    expect(storageUnavailableReason(new Error('timeout exceeded when trying to connect'))).toBe(
      'no database connection was free in time',
    );
    expect(storageUnavailableReason(new Error('Query read timeout'))).toBe(
      'the database did not answer in time',
    );
    expect(storageUnavailableReason(new Error('Connection terminated unexpectedly'))).toBe(
      'the connection to the database was lost',
    );
    expect(storageUnavailableReason(new Error('Connection terminated due to connection timeout'))).toBe(
      'the database did not answer in time',
    );
  });

  it('looks inside an AggregateError (a name with several addresses) and an error cause', () => {
    const refused = (address: string) =>
      driverError(`connect ECONNREFUSED ${address}`, { code: 'ECONNREFUSED' });
    expect(
      storageUnavailableReason(new AggregateError([refused('::1:5432'), refused('127.0.0.1:5432')])),
    ).toBe('the database cannot be reached (ECONNREFUSED)');
    expect(storageUnavailableReason(new Error('wrapped', { cause: postgresError('57P03') }))).toBe(
      'the database is starting up or shutting down',
    );
  });

  it.each([
    ['a unique violation', postgresError('23505')],
    ['a syntax error', postgresError('42601')],
    ['an undefined table', postgresError('42P01')],
    ['a SQLite constraint', driverError('UNIQUE constraint failed', { code: 'SQLITE_CONSTRAINT_UNIQUE' })],
    ['a plain error', new Error('boom')],
    ['an Error with a Node code that is not about the network', driverError('no file', { code: 'ENOENT' })],
    ['a string', 'SQLITE_BUSY'],
    ['null', null],
  ])('leaves %s alone (not unavailable)', (_, error) => {
    expect(storageUnavailableReason(error)).toBeUndefined();
    expect(isStorageUnavailableError(error)).toBe(false);
  });
});

describe('storageUnavailableReason on errors the engines really raise', () => {
  let dir: string;
  let database: TestDatabase;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'portal-errors-'));
    database = await createTestDatabase();
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  it('SQLite: a write lock held by another connection (BUSY) and a read-only file (READONLY)', () => {
    const file = path.join(dir, 'busy.sqlite');
    const holder = new BetterSqlite(file);
    const other = new BetterSqlite(file, { timeout: 0 });
    const readonly = new BetterSqlite(file, { readonly: true });
    try {
      holder.exec('CREATE TABLE t (x INTEGER)');
      holder.exec('BEGIN IMMEDIATE');
      const busy = errorOf(() => other.exec('INSERT INTO t VALUES (1)'));
      expect(busy).toMatchObject({ code: 'SQLITE_BUSY' });
      expect(storageUnavailableReason(busy)).toBe('another process holds its write lock');
      holder.exec('COMMIT');
      const readOnly = errorOf(() => readonly.exec('INSERT INTO t VALUES (1)'));
      expect(readOnly).toMatchObject({ code: 'SQLITE_READONLY' });
      expect(storageUnavailableReason(readOnly)).toBe('the database or its folder is read-only');
    } finally {
      for (const db of [holder, other, readonly]) db.close();
    }
  });

  it('PostgreSQL: a read-only transaction, a refused connection; a constraint is not unavailability', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('CREATE TABLE t (x INTEGER PRIMARY KEY)');
      await client.query('BEGIN READ ONLY');
      const readOnly = await client.query('INSERT INTO t VALUES (1)').catch((error: unknown) => error);
      await client.query('ROLLBACK');
      expect(readOnly).toMatchObject({ code: '25006' });
      expect(storageUnavailableReason(readOnly)).toBe('the database is read-only');
      await client.query('INSERT INTO t VALUES (1)');
      const duplicate = await client.query('INSERT INTO t VALUES (1)').catch((error: unknown) => error);
      expect(duplicate).toMatchObject({ code: '23505' });
      expect(storageUnavailableReason(duplicate)).toBeUndefined();
    } finally {
      await client.end();
    }
    // Port 1 on loopback: nothing listens there.
    const nowhere = new pg.Client({
      host: '127.0.0.1',
      port: 1,
      user: 'portal',
      connectionTimeoutMillis: 2000,
    });
    const refused = await nowhere.connect().catch((error: unknown) => error);
    expect(storageUnavailableReason(refused)).toBe('the database cannot be reached (ECONNREFUSED)');
  });
});

describe('the API answers storage unavailability 503 with Retry-After, whichever engine', () => {
  const app = Fastify({ logger: false });
  const thrown = new Map<string, unknown>([
    ['sqlite-busy', driverError('database is locked', { code: 'SQLITE_BUSY' })],
    ['postgres-timeout', postgresError('57014')],
    ['postgres-gone', new Error('Connection terminated unexpectedly')],
    ['postgres-constraint', postgresError('23505')],
  ]);
  beforeAll(async () => {
    await app.register(errorsPlugin);
    app.get<{ Params: { kind: string } }>('/fail/:kind', async (request) => {
      throw thrown.get(request.params.kind);
    });
    await app.ready();
  });
  afterAll(() => app.close());

  it.each(['sqlite-busy', 'postgres-timeout', 'postgres-gone'])(
    '%s: 503, Retry-After, the same text',
    async (kind) => {
      const response = await app.inject(`/fail/${kind}`);
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe(String(STORAGE_RETRY_AFTER_SECONDS));
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.json()).toEqual({
        error: STORAGE_UNAVAILABLE_MESSAGE,
        code: API_ERROR_CODES.storageUnavailable,
      });
    },
  );

  it('any other database error stays a 500', async () => {
    const response = await app.inject('/fail/postgres-constraint');
    expect(response.statusCode).toBe(500);
    expect(response.headers['retry-after']).toBeUndefined();
  });
});
