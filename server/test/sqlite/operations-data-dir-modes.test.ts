/**
 * From operations.test.ts: a real server process on SQLite keeps its data folder private (umask 077 in
 * server.ts): the folder 0700, the database, its WAL and the key file 0600. PostgreSQL keeps nothing in DATA_DIR.
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { DB_FILE_NAME } from '../../src/db/connection.js';
import { dataDirsPerTest } from '../helpers.js';

const SERVER_DIR = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = dataDirsPerTest();

it('creates DATA_DIR 0700 with every file in it 0600, the WAL included (umask 077)', async () => {
  // A folder that does not exist yet: the server creates it.
  const dir = path.join(dataDir(), 'data');
  // Port 0: the system picks a free one (never one of the portal's own).
  const child = spawn(process.execPath, ['--conditions=portal-source', '--import', 'tsx', 'src/server.ts'], {
    cwd: SERVER_DIR,
    env: {
      ...process.env,
      PORT: '0',
      HOST: 'localhost',
      DATA_DIR: dir,
      SHELL_DIST: path.join(dir, 'no-shell-build'),
      LOG_LEVEL: 'silent',
      DEMO_ACCOUNTS: 'false',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  try {
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.includes('My Profile portal:')) resolve();
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then((code) => reject(new Error(`server exited (${code}): ${output}`)));
    });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const name of [DB_FILE_NAME, `${DB_FILE_NAME}-wal`, `${DB_FILE_NAME}-shm`, 'totp-encryption-key']) {
      expect(statSync(path.join(dir, name)).mode & 0o777, name).toBe(0o600);
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
  // A start from the sources (tsx): a few seconds quiet, past 20 s on a busy machine (a bound only).
}, 120_000);
