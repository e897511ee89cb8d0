/**
 * TOTP_ENCRYPTION_KEY: the key that seals the authenticator-app secrets, loaded (or generated once) and checked
 * against the secrets the database already holds, so a wrong key stops the start-up instead of the sign-ins.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '../config/env.js';
import { describeKey, readOrCreateKeyFile, type LoadedKey } from './key-file.js';
import { SecretBox } from './secret-box.js';

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

/** What the key check reads and writes in the database (storage/totp-key.ts keeps it there). */
export interface TotpKeyRecords {
  /** One sealed authenticator secret with its user id (the additional data), if any is stored. */
  aSealedSecret(): Promise<{ userId: string; secretEnc: string } | undefined>;
  /** The stored fingerprint (TOTP_KEY_FINGERPRINT), if any. */
  fingerprint(): Promise<string | undefined>;
  saveFingerprint(fingerprint: string): Promise<void>;
}

const RESTORE_HINT =
  'Restore the key the secrets were sealed with (the DATA_DIR/totp-encryption-key file from a backup, or the ' +
  'same TOTP_ENCRYPTION_KEY), or the authenticator apps enrolled so far stop working.';

/**
 * The key that encrypts authenticator-app secrets: TOTP_ENCRYPTION_KEY when set (validated at start-up),
 * otherwise a key generated once and kept in DATA_DIR (mode 0600), like the provider's signing key.
 *
 * With `records`, the key must be the one the database's sealed secrets were made with: checked against the key's
 * fingerprint in `meta` (stored on first use), or, for a database from before the fingerprint, by opening one
 * sealed secret. Otherwise the start-up stops with a ConfigError naming TOTP_ENCRYPTION_KEY, and no new key is
 * ever generated while sealed secrets exist.
 */
export async function loadTotpEncryptionKey(
  configured: Buffer | undefined,
  dataDir: string,
  records?: TotpKeyRecords,
): Promise<LoadedKey> {
  const sealed = records ? await records.aSealedSecret() : undefined;
  const loaded = readOrCreateKey(configured, dataDir, sealed !== undefined);
  if (!records) return loaded;

  const fingerprint = keyFingerprint(loaded.key);
  const stored = await records.fingerprint();
  if (stored !== undefined && sameFingerprint(stored, fingerprint)) return loaded;
  if (sealed) {
    if (stored !== undefined) {
      throw new ConfigError(
        `TOTP_ENCRYPTION_KEY: the ${describe(loaded)} is not the key the authenticator secrets in the database ` +
          `were sealed with (its fingerprint differs). ${RESTORE_HINT}`,
      );
    }
    try {
      new SecretBox(loaded.key).open(sealed.secretEnc, sealed.userId);
    } catch {
      throw new ConfigError(
        `TOTP_ENCRYPTION_KEY: the ${describe(loaded)} cannot open the authenticator secrets in the database. ` +
          RESTORE_HINT,
      );
    }
  }
  await records.saveFingerprint(fingerprint);
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
