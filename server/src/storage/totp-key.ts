/** The rows TOTP_ENCRYPTION_KEY's start-up check reads and writes: a sealed secret, and the key's fingerprint. */
import { TOTP_KEY_FINGERPRINT, type TotpKeyRecords } from '../crypto/totp-encryption-key.js';
import type { Sql } from '../db/sql.js';

/** The key check's records over `Sql`: `user_factors` (migration 004) and `meta`. */
export function totpKeyRecords(sql: Sql): TotpKeyRecords {
  return {
    async aSealedSecret() {
      const row = await sql.get<{ user_id: string; secret_enc: string }>(
        'SELECT user_id, secret_enc FROM user_factors WHERE secret_enc IS NOT NULL LIMIT 1',
      );
      return row && { userId: row.user_id, secretEnc: row.secret_enc };
    },
    async fingerprint() {
      return (
        await sql.get<{ value: string }>('SELECT value FROM meta WHERE key = ?', [TOTP_KEY_FINGERPRINT])
      )?.value;
    },
    async saveFingerprint(fingerprint) {
      await sql.run(
        `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [TOTP_KEY_FINGERPRINT, fingerprint],
      );
    },
  };
}
