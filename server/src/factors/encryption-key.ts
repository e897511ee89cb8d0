import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../config/env.js';
import { describeKey, readOrCreateKeyFile, type LoadedKey } from '../crypto/key-file.js';
import { SecretBox } from '../crypto/secret-box.js';
import type { Sql } from '../db/sql.js';

export const TOTP_KEY_FILE = 'totp-encryption-key';
/** The `meta` row holding the key's fingerprint (an HMAC made with the key: it reveals nothing of it). */
export const TOTP_KEY_FINGERPRINT = 'totp_key_fingerprint';

export type { LoadedKey };

/** Identifies a key without revealing it: HMAC-SHA256 keyed by the key itself over a fixed label. */
export function keyFingerprint(key: Buffer): string {
  return createHmac('sha256', key).update('portal totp-encryption-key fingerprint v1').digest('base64url');
}

function sameFingerprint(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** One sealed authenticator secret (with its user id, the additional data), if any is stored. */
function aSealedSecret(sql: Sql) {
  return sql.get<{ user_id: string; secret_enc: string }>(
    'SELECT user_id, secret_enc FROM user_factors WHERE secret_enc IS NOT NULL LIMIT 1',
  );
}

const RESTORE_HINT =
  'Restore the key the secrets were sealed with (the DATA_DIR/totp-encryption-key file from a backup, or the ' +
  'same TOTP_ENCRYPTION_KEY), or the authenticator apps enrolled so far stop working.';

/**
 * The key that encrypts authenticator-app secrets: TOTP_ENCRYPTION_KEY when set (validated at start-up),
 * otherwise a key generated once and kept in DATA_DIR (mode 0600), like the provider's signing key.
 *
 * With `db`, the key must be the one the database's sealed secrets were made with: checked against the key's
 * fingerprint in `meta` (stored on first use), or, for a database from before the fingerprint, by opening one
 * sealed secret. Otherwise the start-up stops with a ConfigError naming TOTP_ENCRYPTION_KEY, and no new key is
 * ever generated while sealed secrets exist.
 */
export async function loadTotpEncryptionKey(
  configured: Buffer | undefined,
  dataDir: string,
  db?: Sql,
): Promise<LoadedKey> {
  const sealed = db ? await aSealedSecret(db) : undefined;
  const loaded = readOrCreateKey(configured, dataDir, sealed !== undefined);
  if (!db) return loaded;

  const fingerprint = keyFingerprint(loaded.key);
  const stored = (
    await db.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [TOTP_KEY_FINGERPRINT])
  )?.value;
  if (stored !== undefined && sameFingerprint(stored, fingerprint)) return loaded;
  if (sealed) {
    if (stored !== undefined) {
      throw new ConfigError(
        `TOTP_ENCRYPTION_KEY: the ${describe(loaded)} is not the key the authenticator secrets in the database ` +
          `were sealed with (its fingerprint differs). ${RESTORE_HINT}`,
      );
    }
    try {
      new SecretBox(loaded.key).open(sealed.secret_enc, sealed.user_id);
    } catch {
      throw new ConfigError(
        `TOTP_ENCRYPTION_KEY: the ${describe(loaded)} cannot open the authenticator secrets in the database. ` +
          RESTORE_HINT,
      );
    }
  }
  await db.run(
    `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    [TOTP_KEY_FINGERPRINT, fingerprint],
  );
  return { ...loaded, replacedUnusedKey: stored !== undefined };
}

function describe(loaded: LoadedKey): string {
  return describeKey('TOTP_ENCRYPTION_KEY', loaded);
}

function readOrCreateKey(configured: Buffer | undefined, dataDir: string, secretsSealed: boolean): LoadedKey {
  return readOrCreateKeyFile({
    setting: 'TOTP_ENCRYPTION_KEY',
    configured,
    dataDir,
    fileName: TOTP_KEY_FILE,
    sealedExists: secretsSealed,
    sealedWhat: 'authenticator secrets',
    restoreHint: RESTORE_HINT,
  });
}
