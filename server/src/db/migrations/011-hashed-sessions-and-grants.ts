import { createHash } from 'node:crypto';
import type { Migration } from './index.js';

const hash = (value: string | null) =>
  value === null ? null : createHash('sha256').update(value).digest('base64url');

/**
 * Session uids and grant ids are kept only as SHA-256 hashes too (oidc/adapter.ts `storedIdOf`): a Grant row's
 * `id`, and the `uid`, `grant_id` and `session_uid` columns. An access token's `sid`/`gid` are checked against
 * those hashes, so a copy of the database names none a forged token could carry. The payloads still name them in
 * clear here: the server seals every clear payload at its next start, with KEY_RING_ENCRYPTION_KEY (a key this
 * migration does not have; keys/at-rest.ts). Same ids, same tokens: nobody is signed out.
 */
export const m011HashedSessionsAndGrants: Migration = {
  name: '011-hashed-sessions-and-grants',
  up(db) {
    const rows = db
      .prepare<
        [],
        { model: string; id: string; uid: string | null; grant_id: string | null; session_uid: string | null }
      >('SELECT model, id, uid, grant_id, session_uid FROM oidc_payloads')
      .all();
    const update = db.prepare(
      'UPDATE oidc_payloads SET id = ?, uid = ?, grant_id = ?, session_uid = ? WHERE model = ? AND id = ?',
    );
    for (const row of rows) {
      update.run(
        row.model === 'Grant' ? hash(row.id) : row.id,
        hash(row.uid),
        hash(row.grant_id),
        hash(row.session_uid),
        row.model,
        row.id,
      );
    }
  },
};
