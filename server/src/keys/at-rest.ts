/**
 * KEY_RING_ENCRYPTION_KEY: the key, kept out of the database, that seals the key ring's private keys and the
 * provider's stored records at rest. Loaded (or generated once on the embedded default), checked against what the
 * database already holds sealed, and used to seal the rows an older server wrote in clear.
 */
import { ConfigError } from '../config/env.js';
import { describeKey, readOrCreateKeyFile, type LoadedKey } from '../crypto/key-file.js';
import type { Database, Sql } from '../db/sql.js';
import { hasClearRows, sealClearRows, sealedSamples } from '../storage/sealed-rows.js';
import { sealingOf, type AtRestSealing } from '../storage/sealing.js';

export const KEY_RING_KEY_FILE = 'key-ring-encryption-key';
const SETTING = 'KEY_RING_ENCRYPTION_KEY';

export interface LoadedSealing extends LoadedKey {
  sealing: AtRestSealing;
  /** Rows found in clear and sealed at this start (an upgrade). */
  sealedNow: { keys: number; records: number };
}

const RESTORE_HINT =
  'Restore the key the key ring was sealed with (the DATA_DIR/key-ring-encryption-key file from a backup, or the ' +
  'same KEY_RING_ENCRYPTION_KEY): the ring cannot sign, and a new key would sign everybody out.';

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
  const clear = await hasClearRows(database);
  const sealedNow = clear
    ? await database.transaction((tx) => sealClearRows(tx, sealing))
    : { keys: 0, records: 0 };
  // Again: another instance, started at the same moment with another key, may have sealed the rows first.
  if (clear) await check();
  return { ...loaded, sealing, sealedNow };
}

async function opensEverySample(sql: Sql, sealing: AtRestSealing): Promise<boolean> {
  try {
    for (const { value, context, box } of await sealedSamples(sql)) sealing[box].open(value, context);
    return true;
  } catch {
    return false;
  }
}
