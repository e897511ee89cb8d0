import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseEncryptionKey } from '../config/env.js';

export const TOTP_KEY_FILE = 'totp-encryption-key';

export interface LoadedKey {
  key: Buffer;
  /** Where it came from, for the start-up log line. */
  source: 'environment' | 'file' | 'generated';
  file?: string;
}

/**
 * The key that encrypts authenticator-app secrets: TOTP_ENCRYPTION_KEY when set (validated at start-up),
 * otherwise a key generated once and kept in DATA_DIR (mode 0600), like the provider's signing key. Losing
 * that file makes every enrolled authenticator app unusable, so back it up with the database.
 */
export function loadTotpEncryptionKey(configured: Buffer | undefined, dataDir: string): LoadedKey {
  if (configured) return { key: configured, source: 'environment' };
  const file = path.join(dataDir, TOTP_KEY_FILE);
  if (existsSync(file)) {
    const key = parseEncryptionKey(readFileSync(file, 'utf8'));
    if (!key) throw new Error(`${file} does not hold a 32-byte key (64 hex characters)`);
    return { key, source: 'file', file };
  }
  const key = randomBytes(32);
  mkdirSync(dataDir, { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${key.toString('hex')}\n`, { mode: 0o600 });
  renameSync(temp, file);
  return { key, source: 'generated', file };
}
