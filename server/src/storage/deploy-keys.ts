/**
 * Deploy keys (migration 021's `deploy_keys`): each one lets one remote's team act on that remote's releases. Only
 * the key's SHA-256 is kept (the key is shown once, by release-keys-cli). The interface and its SQL.
 */
import { isUniqueViolation, type Sql } from '../db/sql.js';

export interface DeployKey {
  label: string;
  remote: string;
  /** ms since the epoch. */
  createdAt: number;
  revokedAt: number | null;
}

export interface DeployKeyStore {
  /** Adds a key by its hash; false when a live key already has this label. */
  add(keyHash: string, key: Omit<DeployKey, 'revokedAt'>): Promise<boolean>;
  /** The live (not revoked) key with this hash. */
  liveByHash(keyHash: string): Promise<DeployKey | undefined>;
  /** Revokes the live key with this label at `at`; false when there is none. */
  revoke(label: string, at: number): Promise<boolean>;
  /** Every key, revoked ones too, oldest first. */
  list(): Promise<DeployKey[]>;
}

interface KeyRow {
  label: string;
  remote: string;
  created_at: number;
  revoked_at: number | null;
}

function keyOf(row: KeyRow): DeployKey {
  return {
    label: row.label,
    remote: row.remote,
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

/** The store over the portal's database, or over a transaction's (`tx.sql`). */
export function deployKeyStore(sql: Sql): DeployKeyStore {
  return {
    async add(keyHash, key) {
      try {
        await sql.run('INSERT INTO deploy_keys (key_hash, label, remote, created_at) VALUES (?, ?, ?, ?)', [
          keyHash,
          key.label,
          key.remote,
          key.createdAt,
        ]);
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
    async liveByHash(keyHash) {
      const row = await sql.get<KeyRow>(
        'SELECT label, remote, created_at, revoked_at FROM deploy_keys WHERE key_hash = ? AND revoked_at IS NULL',
        [keyHash],
      );
      return row && keyOf(row);
    },
    async revoke(label, at) {
      const result = await sql.run(
        'UPDATE deploy_keys SET revoked_at = ? WHERE label = ? AND revoked_at IS NULL',
        [at, label],
      );
      return result.changes > 0;
    },
    async list() {
      const rows = await sql.all<KeyRow>(
        'SELECT label, remote, created_at, revoked_at FROM deploy_keys ORDER BY created_at, label',
      );
      return rows.map(keyOf);
    },
  };
}
