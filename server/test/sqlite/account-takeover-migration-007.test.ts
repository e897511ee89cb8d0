/**
 * From account-takeover.test.ts (issue 9, row 11): SQLite's migration 007 hashes the ids of provider rows an older
 * server stored in clear. PostgreSQL's schema starts with hashed ids: it has no such rows.
 */
import { createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/crypto/secret-box.js';
import { migrateSqlite } from '../../src/db/migrate-sqlite.js';
import { sqliteMigrations } from '../../src/db/migrations.js';
import { SqliteDatabase } from '../../src/db/sqlite.js';
import { providerAdapter } from '../../src/oidc/adapter.js';
import { SqlProviderStore } from '../../src/storage/provider.js';

describe('migration 007: provider rows written before hashed ids', () => {
  it('hashes their ids and drops the copy in the payload, so the same tokens still resolve through the adapter', async () => {
    const db = new Database(':memory:');
    try {
      // A database at version 6, with a refresh token and a grant stored the old way.
      sqliteMigrations.slice(0, 6).forEach((migration) => migration.up(db));
      db.pragma('user_version = 6');
      const insert = db.prepare(
        `INSERT INTO oidc_payloads (model, id, payload, grant_id, account_id, expires_at)
         VALUES (?, ?, ?, ?, '00uOld', ?)`,
      );
      const later = Math.floor(Date.now() / 1000) + 600;
      insert.run(
        'RefreshToken',
        'old-refresh-token',
        JSON.stringify({ jti: 'old-refresh-token', grantId: 'g1' }),
        'g1',
        later,
      );
      insert.run('Grant', 'g1', JSON.stringify({ jti: 'g1', accountId: '00uOld' }), null, later);

      migrateSqlite(db);

      const rows = db
        .prepare<[], { model: string; id: string; payload: string }>(
          'SELECT model, id, payload FROM oidc_payloads ORDER BY model',
        )
        .all();
      expect(rows).toEqual([
        // Migration 011 hashes the Grant's id too (its payload is sealed at the server's next start).
        {
          model: 'Grant',
          id: createHash('sha256').update('g1').digest('base64url'),
          payload: JSON.stringify({ jti: 'g1', accountId: '00uOld' }),
        },
        {
          model: 'RefreshToken',
          id: createHash('sha256').update('old-refresh-token').digest('base64url'),
          payload: JSON.stringify({ grantId: 'g1' }),
        },
      ]);
      const store = new SqlProviderStore(new SqliteDatabase(db), { records: new SecretBox(randomBytes(32)) });
      expect(await providerAdapter(store)('RefreshToken').find('old-refresh-token')).toEqual({
        grantId: 'g1',
        jti: 'old-refresh-token',
      });
    } finally {
      db.close();
    }
  });
});
