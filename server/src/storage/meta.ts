/** The `meta` table (migration 006): one-off facts about the database by key (the demo accounts were seeded). */
import type { Sql } from '../db/sql.js';

/** Entries of `meta`, over the database or a transaction's `Sql`. */
export interface MetaEntries {
  /** Whether the key has a row. */
  has(key: string): Promise<boolean>;
  /** Writes the key's value unless it already has one (a concurrent writer's value stays). */
  putIfAbsent(key: string, value: string): Promise<void>;
}

export function metaEntries(sql: Sql): MetaEntries {
  return {
    async has(key) {
      return (await sql.get('SELECT 1 AS found FROM meta WHERE key = ?', [key])) !== undefined;
    },
    async putIfAbsent(key, value) {
      await sql.run('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING', [key, value]);
    },
  };
}
