/**
 * Issue 9, row 11 (file modes): DATA_DIR holds the database (refresh tokens, sessions), the provider's signing
 * and cookie keys and the TOTP key. It is 0700 and its files 0600, checked at every start: what can be tightened
 * is (with a warning in the log), and a start that cannot fix it stops, naming DATA_DIR. SQLite only: the folder
 * and the database files in it are what these tests check (on PostgreSQL the database is elsewhere).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { secureDataDir } from '../../src/config/data-dir.js';
import { DB_FILE_NAME } from '../../src/db/connection.js';
import { dataDirsPerTest, startApp } from '../helpers.js';

const modeOf = (file: string) => statSync(file).mode & 0o777;

const newDataDir = dataDirsPerTest();

/** Builds the app on `dataDir` and returns the warnings it logged. */
async function startCollectingWarnings(dataDir: string): Promise<Record<string, unknown>[]> {
  const config = loadConfig({
    DATA_DIR: dataDir,
    SHELL_DIST: path.join(dataDir, 'no-shell-build'),
    DEMO_ACCOUNTS: 'false',
  });
  const warnings: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const line = JSON.parse(chunk.toString('utf8')) as Record<string, unknown>;
      if (line.level === 40) warnings.push(line);
      callback();
    },
  });
  const app = await buildApp(config, { logger: { level: 'warn', stream } });
  await app.close();
  return warnings;
}

describe('DATA_DIR is private', () => {
  it('creates the database, its WAL and the TOTP key file 0600 in a 0700 folder, whatever the umask', async () => {
    const dataDir = path.join(newDataDir(), 'data');
    const t = await startApp({}, dataDir);
    try {
      expect(modeOf(dataDir)).toBe(0o700);
      const files = readdirSync(dataDir);
      expect(files).toEqual(
        expect.arrayContaining([
          DB_FILE_NAME,
          `${DB_FILE_NAME}-wal`,
          `${DB_FILE_NAME}-shm`,
          'totp-encryption-key',
        ]),
      );
      for (const file of files) expect(modeOf(path.join(dataDir, file)), file).toBe(0o600);
    } finally {
      await t.app.close();
    }
  });

  it('tightens a folder an older server left readable (0755, files 0644), and says so in the log', async () => {
    const dataDir = newDataDir();
    await (await startApp({ DEMO_ACCOUNTS: 'false' }, dataDir)).app.close();
    chmodSync(dataDir, 0o755);
    const files = readdirSync(dataDir);
    for (const file of files) chmodSync(path.join(dataDir, file), 0o644);

    const warnings = await startCollectingWarnings(dataDir);
    expect(modeOf(dataDir)).toBe(0o700);
    for (const file of readdirSync(dataDir)) expect(modeOf(path.join(dataDir, file)), file).toBe(0o600);
    const tightened = warnings.filter((line) => line.msg === 'DATA_DIR: tightened a file mode');
    expect(tightened.map((line) => line.file)).toEqual(
      expect.arrayContaining([dataDir, ...files.map((file) => path.join(dataDir, file))]),
    );
    expect(tightened.every((line) => line.was === '0755' || line.was === '0644')).toBe(true);
  });

  it('stops the start-up, naming DATA_DIR, when a mode cannot be changed', () => {
    const dataDir = newDataDir();
    const file = path.join(dataDir, 'portal.sqlite');
    writeFileSync(file, '');
    chmodSync(file, 0o644);
    const log = { warn: () => undefined };
    if (process.getuid?.() === 0) {
      // Root may chmod anything but an immutable file.
      execFileSync('chattr', ['+i', file]);
      try {
        expect(() => secureDataDir(dataDir, log)).toThrow(ConfigError);
        expect(() => secureDataDir(dataDir, log)).toThrow(
          new RegExp(`^DATA_DIR \\(${dataDir}\\): .*portal\\.sqlite has mode 0644 and cannot be made 0600`),
        );
      } finally {
        execFileSync('chattr', ['-i', file]);
      }
    } else {
      // Anyone else cannot change a folder they do not own, such as /.
      expect(() => secureDataDir('/', log)).toThrow(
        /^DATA_DIR \(\/\): \/ has mode 0[0-7]+ and cannot be made 0700/,
      );
    }
  });
});
