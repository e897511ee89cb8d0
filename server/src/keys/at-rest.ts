/**
 * KEY_RING_ENCRYPTION_KEY: the key, kept out of the database, that seals the key ring's private keys and the
 * provider's stored records at rest. Loaded (or generated once on the embedded default), checked against what the
 * database already holds sealed, and used to seal the rows an older server wrote in clear.
 */
import { ConfigError } from '../config/env.js';
import { describeKey, readOrCreateKeyFile, type LoadedKey } from '../crypto/key-file.js';
import { deriveKey, isSealed, SecretBox } from '../crypto/secret-box.js';
import type { Database, Sql } from '../db/sql.js';
import { interactionAccountOf, openPayload, payloadContext, sealPayload } from '../oidc/adapter.js';

export const KEY_RING_KEY_FILE = 'key-ring-encryption-key';
const SETTING = 'KEY_RING_ENCRYPTION_KEY';

/** The boxes made from KEY_RING_ENCRYPTION_KEY. */
export interface AtRestSealing {
  /** The key ring's material; the kid is the additional data. */
  keyRing: SecretBox;
  /** The provider's records (oidc_payloads' payloads); model and stored id are the additional data. */
  providerRecords: SecretBox;
}

/** The boxes of one key: the ring's uses the key itself, the records' a key derived from it. */
export function sealingOf(key: Buffer): AtRestSealing {
  return {
    keyRing: new SecretBox(key),
    providerRecords: new SecretBox(deriveKey(key, 'portal provider records v1')),
  };
}

export interface LoadedSealing extends LoadedKey {
  sealing: AtRestSealing;
  /** Rows found in clear and sealed at this start (an upgrade). */
  sealedNow: { keys: number; records: number };
}

const RESTORE_HINT =
  'Restore the key the key ring was sealed with (the DATA_DIR/key-ring-encryption-key file from a backup, or the ' +
  'same KEY_RING_ENCRYPTION_KEY): the ring cannot sign, and a new key would sign everybody out.';

// Sealed values start with `v1.` (crypto/secret-box.ts); clear ones never do (JSON, base64url).
const SEALED_LIKE = `LIKE 'v1.%'`;

/**
 * The key (the setting, else DATA_DIR's file, else a new file while nothing is sealed), refused with a ConfigError
 * naming KEY_RING_ENCRYPTION_KEY when it cannot open the sealed ring (or records) the database holds, or when it is
 * missing on PostgreSQL. Then seals every clear row, in one write transaction (instances starting together: the
 * second finds nothing left in clear). Nobody is signed out: the same kids sign and verify, the same rows resolve.
 */
export async function loadAtRestSealing(
  configured: Buffer | undefined,
  dataDir: string,
  database: Database,
): Promise<LoadedSealing> {
  if (configured === undefined && database.dialect === 'postgres') {
    throw new ConfigError(`${SETTING} is required with DATABASE_URL: every instance must use the same key`);
  }
  const sealedExists = (await sealedSamples(database)).length > 0;
  const loaded = readOrCreateKeyFile({
    setting: SETTING,
    configured,
    dataDir,
    fileName: KEY_RING_KEY_FILE,
    sealedExists,
    sealedWhat: 'a key ring',
    restoreHint: RESTORE_HINT,
  });
  const sealing = sealingOf(loaded.key);
  const check = async () => {
    if (!(await opensEverySample(database, sealing))) {
      throw new ConfigError(
        `${SETTING}: the ${describeKey(SETTING, loaded)} cannot open the key ring in the database. ${RESTORE_HINT}`,
      );
    }
  };
  await check();
  // A write lock only when there is something to seal: a CLI start on a sealed database never waits for one.
  const clear = await database.get<{ one: number }>(
    `SELECT 1 AS one FROM key_ring WHERE material NOT ${SEALED_LIKE}
     UNION ALL SELECT 1 AS one FROM oidc_payloads WHERE payload NOT ${SEALED_LIKE} LIMIT 1`,
  );
  const sealedNow = clear
    ? await database.transaction((tx) => sealClearRows(tx, sealing))
    : { keys: 0, records: 0 };
  // Again: another instance, started at the same moment with another key, may have sealed the rows first.
  if (clear) await check();
  return { ...loaded, sealing, sealedNow };
}

interface SealedSample {
  value: string;
  context: string;
  box: keyof AtRestSealing;
}

/** One sealed key ring row and one sealed payload, if any: what a key must open. */
async function sealedSamples(sql: Sql): Promise<SealedSample[]> {
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

async function opensEverySample(sql: Sql, sealing: AtRestSealing): Promise<boolean> {
  try {
    for (const { value, context, box } of await sealedSamples(sql)) sealing[box].open(value, context);
    return true;
  } catch {
    return false;
  }
}

/** Seals what an older server wrote in clear: the ring's material, and the provider's payloads. */
async function sealClearRows(tx: Sql, sealing: AtRestSealing): Promise<{ keys: number; records: number }> {
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
