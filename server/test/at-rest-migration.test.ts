/**
 * Issue 18, item 4: an upgrade signs nobody out. A database as the server before the seal left it (schema 10 on
 * SQLite, 4 on PostgreSQL: the key ring's material and the provider's payloads in clear, session uids and grant
 * ids in clear) is migrated (SQLite 011 / PostgreSQL 005 hash the ids) and sealed at the next start
 * (keys/at-rest.ts): the same kid signs, and the session cookie, the access token and the refresh token made
 * before it go on working. Runs on both storages.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { DB_FILE_NAME } from '../src/db/connection.js';
import { migratePostgres } from '../src/db/migrate-postgres.js';
import { postgresMigrations, sqliteMigrations } from '../src/db/migrations.js';
import type { Sql } from '../src/db/sql.js';
import { hashedId } from '../src/storage/provider.js';
import { openPayload } from '../src/storage/sealing.js';
import {
  ALICE,
  authorizeUrl,
  follow,
  refresh,
  sessionClaimsOf,
  signIn,
  exchangeCode,
  startApp,
  subOf,
  tempDir,
  TEST_KEY_RING_KEY,
  TEST_TOTP_KEY,
  type TestApp,
} from './helpers.js';
import { createEmptyDatabase, isPostgresProject } from './support/postgres.js';

type Row = Record<string, unknown>;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The schema version before this change: SQLite 010, PostgreSQL 004. */
const SQLITE_BEFORE = 10;
const POSTGRES_BEFORE = 4;

/**
 * The rows the server before the seal kept for the same state: material and payloads in clear, Grant ids and the
 * uid / grant_id / session_uid columns in clear (other models' ids were already hashed, migration 007), a Grant's
 * payload with its id as `jti`.
 */
async function rowsBeforeTheSeal(t: TestApp, knownGrantIds: string[]) {
  const sealing = t.app.atRestSealing;
  const { database } = t.app;
  const keyRing = (await database.all<Row>('SELECT * FROM key_ring')).map((row) => ({
    ...row,
    material: sealing.keyRing.open(String(row.material), String(row.kid)),
  }));
  const records = (await database.all<Row>('SELECT * FROM oidc_payloads')).map((row) => ({
    row,
    payload: openPayload<Row>(
      sealing.providerRecords,
      String(row.model),
      String(row.id),
      String(row.payload),
    ),
  }));
  const plainGrant = new Map(knownGrantIds.map((id) => [hashedId(id), id]));
  for (const { payload } of records) {
    if (typeof payload.grantId === 'string') plainGrant.set(hashedId(payload.grantId), payload.grantId);
  }
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  const oidcPayloads = records.map(({ row, payload }): Row => {
    const grant = row.model === 'Grant' ? plainGrant.get(String(row.id)) : undefined;
    if (row.model === 'Grant' && !grant) throw new Error('a Grant row of an unknown id');
    return {
      ...row,
      id: grant ?? row.id,
      payload: JSON.stringify(grant ? { ...payload, jti: grant } : payload),
      uid: text(payload.uid),
      grant_id: text(payload.grantId),
      session_uid: text(payload.sessionUid),
      account_id: text(payload.accountId),
    };
  });
  return {
    users: await database.all<Row>('SELECT * FROM users'),
    key_ring: keyRing,
    oidc_payloads: oidcPayloads,
  };
}

type OldRows = Awaited<ReturnType<typeof rowsBeforeTheSeal>>;

/** Inserts `rows` into `table`, with the columns the table has at that schema version. */
function insertSqlite(db: BetterSqlite3.Database, table: string, rows: Row[]) {
  const info = db.pragma(`table_info(${table})`) as { name: string }[];
  const columns = new Set(info.map((column) => column.name));
  for (const row of rows) {
    const names = Object.keys(row).filter((name) => columns.has(name));
    db.prepare(`INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map(() => '?').join(', ')})`).run(
      ...names.map((name) => row[name]),
    );
  }
}

async function insertPostgres(client: pg.ClientBase, table: string, rows: Row[]) {
  const { rows: found } = await client.query<{ column_name: string }>(
    'SELECT column_name FROM information_schema.columns WHERE table_name = $1',
    [table],
  );
  const columns = new Set(found.map((column) => column.column_name));
  for (const row of rows) {
    const names = Object.keys(row).filter((name) => columns.has(name));
    await client.query(
      `INSERT INTO ${table} (${names.join(', ')}) VALUES (${names.map((_, index) => `$${index + 1}`).join(', ')})`,
      names.map((name) => row[name]),
    );
  }
}

/** A new data folder (and, on PostgreSQL, database) at the schema before the seal, holding `rows`. */
async function oldInstall(rows: OldRows): Promise<{ dataDir: string; env: Record<string, string> }> {
  const dataDir = tempDir();
  if (!isPostgresProject()) {
    const db = new BetterSqlite3(path.join(dataDir, DB_FILE_NAME));
    db.pragma('journal_mode = WAL');
    sqliteMigrations.slice(0, SQLITE_BEFORE).forEach((migration) => migration.up(db));
    db.pragma(`user_version = ${SQLITE_BEFORE}`);
    for (const table of ['users', 'key_ring', 'oidc_payloads'] as const) insertSqlite(db, table, rows[table]);
    db.close();
    return { dataDir, env: {} };
  }
  const database = await createEmptyDatabase();
  cleanups.push(() => database.drop());
  const pool = new pg.Pool({ connectionString: database.url, max: 1 });
  try {
    await migratePostgres(pool, postgresMigrations.slice(0, POSTGRES_BEFORE));
    const client = await pool.connect();
    try {
      for (const table of ['users', 'key_ring', 'oidc_payloads'] as const)
        await insertPostgres(client, table, rows[table]);
    } finally {
      client.release();
    }
  } finally {
    await pool.end();
  }
  return {
    dataDir,
    env: {
      DATABASE_URL: database.url,
      TOTP_ENCRYPTION_KEY: TEST_TOTP_KEY,
      KEY_RING_ENCRYPTION_KEY: TEST_KEY_RING_KEY,
    },
  };
}

const kidOf = async (t: TestApp) =>
  (await t.app.inject('/oauth2/default/v1/keys'))
    .json<{ keys: { kid: string }[] }>()
    .keys.map((key) => key.kid);

const isFederated = (t: TestApp, token: string) =>
  t.app.inject({
    url: `/api/profile/${subOf(token)}/isfederated`,
    headers: { authorization: `Bearer ${token}` },
  });

async function countOf(sql: Sql, text: string, params: string[] = []): Promise<number> {
  return Number((await sql.get<{ n: number | string }>(`SELECT count(*) AS n FROM ${text}`, params))?.n ?? 0);
}

describe('the upgrade to sealed keys and hashed session and grant ids', () => {
  it('converts clear rows with nobody signed out: the same kid, session cookie, access and refresh token work', async () => {
    // A signed-in browser on the server as it is, whose rows are then written back the way the older one kept them.
    const before = await startApp();
    cleanups.push(() => before.close());
    const signedIn = await signIn(before.app, ALICE);
    const tokens = await exchangeCode(before.app, signedIn);
    const { sid, gid } = sessionClaimsOf(tokens.access_token);
    const kids = await kidOf(before);
    const rows = await rowsBeforeTheSeal(before, [gid]);
    expect(rows.oidc_payloads.some((row) => row.model === 'Session' && row.uid === sid)).toBe(true);
    expect(rows.oidc_payloads.some((row) => row.model === 'Grant' && row.id === gid)).toBe(true);
    expect(rows.key_ring.some((row) => String(row.material).includes('"d"'))).toBe(true);
    await before.app.close();

    const old = await oldInstall(rows);
    const after = await startApp(old.env, old.dataDir);
    cleanups.push(() => after.close());
    const { database } = after.app;

    // Sealed and hashed: nothing in clear is left.
    expect(await countOf(database, `key_ring WHERE material NOT LIKE 'v1.%'`)).toBe(0);
    expect(await countOf(database, `oidc_payloads WHERE payload NOT LIKE 'v1.%'`)).toBe(0);
    expect(await countOf(database, 'oidc_payloads WHERE uid = ? OR session_uid = ?', [sid, sid])).toBe(0);
    expect(await countOf(database, 'oidc_payloads WHERE id = ? OR grant_id = ?', [gid, gid])).toBe(0);
    expect(
      await countOf(database, `oidc_payloads WHERE model = 'Session' AND uid = ?`, [hashedId(sid)]),
    ).toBe(1);
    expect(await countOf(database, `oidc_payloads WHERE model = 'Grant' AND id = ?`, [hashedId(gid)])).toBe(
      1,
    );

    // Nobody is signed out.
    expect(await kidOf(after)).toEqual(kids);
    expect((await isFederated(after, tokens.access_token)).statusCode).toBe(200);
    const renewed = await refresh(after.app, tokens.refresh_token ?? '');
    expect(sessionClaimsOf(renewed.access_token).sid).toBe(sid);
    expect((await isFederated(after, renewed.access_token)).statusCode).toBe(200);
    const silent = await follow(
      after.app,
      signedIn.jar,
      await after.app.inject({
        url: authorizeUrl({ prompt: 'none', state: randomBytes(8).toString('hex') }),
        headers: { cookie: signedIn.jar.header() },
      }),
    );
    expect(silent.headers.location).toMatch(/\/login\/callback\?code=/);
  });
});
