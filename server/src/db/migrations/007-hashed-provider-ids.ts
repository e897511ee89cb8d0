import { createHash } from 'node:crypto';
import type { Migration } from './index.js';

/**
 * The provider's store keeps the ids of sessions, tokens, codes and interactions only as SHA-256 hashes (see
 * oidc/adapter.ts `storedIdOf`), and no longer a copy of them in the payload (`jti`): a copy of the file then
 * redeems no refresh token and opens no session. Rows written before are converted in place.
 */
export const m007HashedProviderIds: Migration = {
  name: '007-hashed-provider-ids',
  up(db) {
    const rows = db
      .prepare<[], { model: string; id: string; payload: string }>(
        `SELECT model, id, payload FROM oidc_payloads WHERE model <> 'Grant'`,
      )
      .all();
    const update = db.prepare('UPDATE oidc_payloads SET id = ?, payload = ? WHERE model = ? AND id = ?');
    for (const row of rows) {
      const payload = JSON.parse(row.payload) as Record<string, unknown>;
      delete payload.jti;
      update.run(
        createHash('sha256').update(row.id).digest('base64url'),
        JSON.stringify(payload),
        row.model,
        row.id,
      );
    }
  },
};
