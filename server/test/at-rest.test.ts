/**
 * Issue 18, item 4: what a copy of the database gives away (a backup, a replica, a role that can read the tables).
 * The key ring's private keys are sealed with KEY_RING_ENCRYPTION_KEY, a key kept out of the database; session
 * uids and grant ids are kept only hashed, and the provider's payloads sealed, so the `sid`/`gid` pair the API
 * checks an access token against cannot be read from the copy. Runs on both storages.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { Sql } from '../src/db/sql.js';
import {
  ALICE,
  appForBlock,
  mintAccessToken,
  sessionClaimsOf,
  startApp,
  subOf,
  tempDir,
  TEST_KEY_RING_KEY,
  TEST_TOTP_KEY,
  tokensFor,
} from './helpers.js';
import { isPostgresProject } from './support/postgres.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const isFederated = (app: FastifyInstance, token: string) =>
  app.inject({ url: `/api/profile/${subOf(token)}/isfederated`, headers: bearer(token) });

/** Every row of every table, as text: what a copy of the database holds. */
async function dumpOf(sql: Sql): Promise<string> {
  const tables = await sql.all<{ name: string }>(
    sql.dialect === 'sqlite'
      ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
      : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
  );
  const rows = await Promise.all(tables.map(({ name }) => sql.all(`SELECT * FROM "${name}"`)));
  return JSON.stringify(rows);
}

/** Every string a row's column or (clear) JSON payload holds under these names. */
function valuesNamed(rows: Record<string, unknown>[], columns: string[], jsonKeys: string[]): Set<string> {
  const found = new Set<string>();
  const walk = (value: unknown) => {
    if (value === null || typeof value !== 'object') return;
    for (const [key, inner] of Object.entries(value)) {
      if (jsonKeys.includes(key) && typeof inner === 'string') found.add(inner);
      walk(inner);
    }
  };
  for (const row of rows) {
    for (const column of columns) if (typeof row[column] === 'string') found.add(row[column]);
    try {
      walk(JSON.parse(String(row.payload)));
    } catch {
      // Sealed: nothing to read.
    }
  }
  return found;
}

describe('a copy of the database', () => {
  const t = appForBlock(() => startApp());

  it('holds no private key: no key_ring row is a JWK with its private part, nor a cookie key as it signs', async () => {
    const rows = await t.app.database.all<{ kid: string; purpose: string; material: string }>(
      'SELECT kid, purpose, material FROM key_ring',
    );
    expect(rows.map((row) => row.purpose).sort()).toEqual(['cookie', 'signing']);
    for (const { material } of rows) {
      expect(material).not.toMatch(/"d"\s*:/);
      expect(material).not.toContain('"kty"');
    }
    const cookieKeys = t.app.keyRing?.cookieKeys ?? [];
    expect(cookieKeys.length).toBeGreaterThan(0);
    for (const key of cookieKeys) expect(JSON.stringify(rows)).not.toContain(key);
  });

  it('names no live session or grant: a token signed with the real key, with sid/gid read from the copy, gets 401', async () => {
    const tokens = await tokensFor(t.app, ALICE);
    const real = sessionClaimsOf(tokens.access_token);
    const sub = subOf(tokens.access_token);
    // The minting is sound: with the real sid and gid the API accepts it.
    const genuine = await mintAccessToken(t.app, sub, { claims: real });
    expect((await isFederated(t.app, genuine)).statusCode).toBe(200);

    const rows = await t.app.database.all<Record<string, unknown>>(
      'SELECT * FROM oidc_payloads WHERE account_id = ?',
      [sub],
    );
    const grantRows = rows.filter((row) => row.model === 'Grant');
    const sids = valuesNamed(rows, ['uid', 'session_uid'], ['uid', 'sessionUid', 'sid']);
    const gids = valuesNamed(grantRows, ['id'], ['jti']);
    for (const value of valuesNamed(rows, ['grant_id'], ['grantId', 'gid'])) gids.add(value);
    expect(sids.size).toBeGreaterThan(0);
    expect(gids.size).toBeGreaterThan(0);
    let forged = 0;
    for (const sid of sids) {
      for (const gid of gids) {
        const token = await mintAccessToken(t.app, sub, { claims: { sid, gid } });
        const response = await isFederated(t.app, token);
        expect({ sid, gid, status: response.statusCode }).toEqual({ sid, gid, status: 401 });
        forged += 1;
      }
    }
    expect(forged).toBeGreaterThan(0);

    // Nowhere else either: no table holds the session's uid, the grant's id or the refresh token in clear.
    const dump = await dumpOf(t.app.database);
    expect(dump).not.toContain(real.sid);
    expect(dump).not.toContain(real.gid);
    expect(dump).not.toContain(tokens.refresh_token ?? 'no refresh token');
  });
});

describe('KEY_RING_ENCRYPTION_KEY at start-up', () => {
  it('refuses a key that does not open the sealed ring, naming the setting; the right one still signs with the same kid', async () => {
    const dataDir = tempDir();
    const keys = (key: string): Record<string, string> => ({
      KEY_RING_ENCRYPTION_KEY: key,
      // The postgres project's startApp names a database only when the test does not: keep the same one.
      ...(isPostgresProject() ? { TOTP_ENCRYPTION_KEY: TEST_TOTP_KEY } : {}),
    });
    const first = await startApp(keys(TEST_KEY_RING_KEY), dataDir);
    const kid = (await first.app.inject('/oauth2/default/v1/keys')).json<{ keys: { kid: string }[] }>()
      .keys[0]?.kid;
    const database: Record<string, string> = first.config.DATABASE_URL
      ? { DATABASE_URL: first.config.DATABASE_URL }
      : {};
    await first.app.close();
    try {
      await expect(
        startApp({ ...keys(randomBytes(32).toString('hex')), ...database }, dataDir),
      ).rejects.toThrow(
        /^KEY_RING_ENCRYPTION_KEY: the key in KEY_RING_ENCRYPTION_KEY cannot open the key ring/,
      );
      const again = await startApp({ ...keys(TEST_KEY_RING_KEY), ...database }, dataDir);
      const kidAgain = (await again.app.inject('/oauth2/default/v1/keys')).json<{ keys: { kid: string }[] }>()
        .keys[0]?.kid;
      expect(kidAgain).toBe(kid);
      await again.app.close();
    } finally {
      await first.close();
    }
  });
});
