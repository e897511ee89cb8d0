import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from './env.js';

/** Only the server's user may read DATA_DIR: it holds the database, refresh tokens and every key. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

interface Warns {
  warn(details: object, message: string): void;
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/**
 * Makes DATA_DIR (created if missing) 0700 and the files and folders in it 0600 / 0700, logging what it had to
 * tighten. Stops the start-up with a ConfigError naming DATA_DIR when a mode cannot be changed (e.g. the
 * server's user does not own the folder or a file in it).
 */
export function secureDataDir(dataDir: string, log: Warns): void {
  // File modes mean nothing there.
  if (process.platform === 'win32') return;
  mkdirSync(dataDir, { recursive: true, mode: DIR_MODE });
  tighten(dataDir, statSync(dataDir).mode, DIR_MODE, dataDir, log);
  for (const entry of readdirSync(dataDir)) {
    const file = path.join(dataDir, entry);
    const stats = lstatSync(file);
    // A symbolic link's own mode is meaningless; what it points at is the operator's choice.
    if (stats.isSymbolicLink()) continue;
    tighten(file, stats.mode, stats.isDirectory() ? DIR_MODE : FILE_MODE, dataDir, log);
  }
}

function tighten(file: string, mode: number, wanted: number, dataDir: string, log: Warns): void {
  // Anything the group or others may do, or more than the owner needs, is removed.
  if ((mode & 0o777 & ~wanted) === 0) return;
  try {
    chmodSync(file, wanted);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(
      `DATA_DIR (${dataDir}): ${file} has mode ${octal(mode)} and cannot be made ${octal(wanted)} (${code}). ` +
        'Run the server as the owner of DATA_DIR and its files, or fix their modes.',
    );
  }
  log.warn({ file, was: octal(mode), now: octal(wanted) }, 'DATA_DIR: tightened a file mode');
}
