/**
 * A 32-byte key kept out of the database: the configured setting's value, otherwise a file generated once in
 * DATA_DIR (mode 0600) beside the SQLite database. Shared by TOTP_ENCRYPTION_KEY and KEY_RING_ENCRYPTION_KEY.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, parseEncryptionKey } from '../config/env.js';

export interface LoadedKey {
  key: Buffer;
  /** Where it came from, for the start-up log line. */
  source: 'environment' | 'file' | 'generated';
  file?: string;
  /** The key differs from the one this database knew, which had sealed nothing: the fingerprint was replaced. */
  replacedUnusedKey?: boolean;
}

export interface KeyFileOptions {
  /** The setting's name, which every refusal starts with. */
  setting: string;
  configured: Buffer | undefined;
  dataDir: string;
  /** The file's name in dataDir. */
  fileName: string;
  /** The database already holds values sealed with a key: a missing file is then refused, never replaced. */
  sealedExists: boolean;
  /** What the database holds sealed, for the refusal ("authenticator secrets"). */
  sealedWhat: string;
  /** How to recover, appended to the refusal. */
  restoreHint: string;
}

/** The configured key, the file's, or a new one written to the file (only while nothing is sealed). */
export function readOrCreateKeyFile(options: KeyFileOptions): LoadedKey {
  const { setting, configured, dataDir, fileName } = options;
  if (configured) return { key: configured, source: 'environment' };
  const file = path.join(dataDir, fileName);
  if (existsSync(file)) {
    const key = parseEncryptionKey(readFileSync(file, 'utf8'));
    if (!key) throw new ConfigError(`${setting}: ${file} does not hold a 32-byte key (64 hex characters)`);
    return { key, source: 'file', file };
  }
  if (options.sealedExists) {
    throw new ConfigError(
      `${setting} is not set and ${file} is missing, but the database holds ${options.sealedWhat} ` +
        `sealed with a key. ${options.restoreHint}`,
    );
  }
  const key = randomBytes(32);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${key.toString('hex')}\n`, { mode: 0o600 });
  // The mode above applies only to a new file; a leftover temp file keeps its own.
  chmodSync(temp, 0o600);
  renameSync(temp, file);
  return { key, source: 'generated', file };
}

/** Where a loaded key came from, as a refusal names it. */
export function describeKey(setting: string, loaded: LoadedKey): string {
  return loaded.source === 'environment' ? `key in ${setting}` : `key in ${loaded.file}`;
}
