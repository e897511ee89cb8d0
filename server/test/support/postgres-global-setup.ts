/**
 * vitest global setup (once per run, for project postgres): a PostgreSQL server and a migrated template database that
 * each test database is cloned from (support/postgres.ts). TEST_DATABASE_URL names a server to use instead of
 * starting one: its user must be allowed to create databases; every database this run made there is dropped at
 * the end.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { migratePostgres } from '../../src/db/migrate-postgres.js';
import { startEmbeddedPostgres, withDatabase, type EmbeddedServer } from './postgres-server.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.TEST_DATABASE_URL;
  let server: EmbeddedServer | undefined;
  if (!external) server = await startEmbeddedPostgres();
  const adminUrl = external ?? (server as EmbeddedServer).url;
  const run = randomBytes(4).toString('hex');
  const prefix = `portal_test_${run}_`;
  const template = `${prefix}template`;

  const query = async (url: string, work: (client: pg.Client) => Promise<unknown>) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await work(client);
    } finally {
      await client.end();
    }
  };
  try {
    await query(adminUrl, (client) => client.query(`CREATE DATABASE "${template}"`));
    await query(withDatabase(adminUrl, template), (client) => migratePostgres(client));
  } catch (error) {
    await server?.destroy();
    throw error;
  }
  project.provide('postgres', { adminUrl, template, prefix, strategy: server ? 'FILE_COPY' : 'WAL_LOG' });

  return async () => {
    if (server) {
      await server.destroy();
      return;
    }
    await query(adminUrl, async (client) => {
      const { rows } = await client.query<{ datname: string }>(
        'SELECT datname FROM pg_database WHERE starts_with(datname, $1) ORDER BY datname = $2',
        [prefix, template],
      );
      for (const { datname } of rows) await client.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    });
  };
}
