/**
 * The rows sealed at rest with KEY_RING_ENCRYPTION_KEY (the key ring's material, the provider's payloads) as the
 * start-up check sees them: a sealed sample of each, whether any row is still in clear, and sealing those.
 * The check itself: keys/at-rest.ts.
 */
import { isSealed } from '../crypto/secret-box.js';
import type { Sql } from '../db/sql.js';
import {
  interactionAccountOf,
  openPayload,
  payloadContext,
  sealPayload,
  type AtRestSealing,
} from './sealing.js';

// Sealed values start with `v1.` (crypto/secret-box.ts); clear ones never do (JSON, base64url).
const SEALED_LIKE = `LIKE 'v1.%'`;

export interface SealedSample {
  value: string;
  context: string;
  box: keyof AtRestSealing;
}

/** One sealed key ring row and one sealed payload, if any: what a key must open. */
export async function sealedSamples(sql: Sql): Promise<SealedSample[]> {
  const ring = await sql.get<{ kid: string; material: string }>(
    `SELECT kid, material FROM key_ring WHERE material ${SEALED_LIKE} LIMIT 1`,
  );
  const record = await sql.get<{ model: string; id: string; payload: string }>(
    `SELECT model, id, payload FROM oidc_payloads WHERE payload ${SEALED_LIKE} LIMIT 1`,
  );
  return [
    ...(ring ? [{ value: ring.material, context: ring.kid, box: 'keyRing' as const }] : []),
    ...(record
      ? [
          {
            value: record.payload,
            context: payloadContext(record.model, record.id),
            box: 'providerRecords' as const,
          },
        ]
      : []),
  ];
}

/** Whether any row an older server wrote in clear is left (a write lock is taken only then). */
export async function hasClearRows(sql: Sql): Promise<boolean> {
  const row = await sql.get<{ one: number }>(
    `SELECT 1 AS one FROM key_ring WHERE material NOT ${SEALED_LIKE}
     UNION ALL SELECT 1 AS one FROM oidc_payloads WHERE payload NOT ${SEALED_LIKE} LIMIT 1`,
  );
  return row !== undefined;
}

/** Seals what an older server wrote in clear: the ring's material, and the provider's payloads. */
export async function sealClearRows(
  tx: Sql,
  sealing: AtRestSealing,
): Promise<{ keys: number; records: number }> {
  let keys = 0;
  const clearKeys = await tx.all<{ kid: string; material: string }>(
    `SELECT kid, material FROM key_ring WHERE material NOT ${SEALED_LIKE}`,
  );
  for (const { kid, material } of clearKeys) {
    const { changes } = await tx.run('UPDATE key_ring SET material = ? WHERE kid = ? AND material = ?', [
      sealing.keyRing.seal(material, kid),
      kid,
      material,
    ]);
    keys += changes;
  }
  let records = 0;
  const clearRecords = await tx.all<{ model: string; id: string; payload: string }>(
    `SELECT model, id, payload FROM oidc_payloads WHERE payload NOT ${SEALED_LIKE}`,
  );
  for (const { model, id, payload } of clearRecords) {
    if (isSealed(payload)) continue;
    const opened = openPayload<Record<string, unknown>>(sealing.providerRecords, model, id, payload);
    // Ids are kept only hashed, never in the payload (the adapter puts `jti` back on reading).
    delete opened.jti;
    const account = model === 'Interaction' ? interactionAccountOf(opened) : undefined;
    const { changes } = await tx.run(
      `UPDATE oidc_payloads SET payload = ?, account_id = coalesce(?, account_id)
       WHERE model = ? AND id = ? AND payload = ?`,
      [sealPayload(sealing.providerRecords, model, id, opened), account ?? null, model, id, payload],
    );
    records += changes;
  }
  return { keys, records };
}
