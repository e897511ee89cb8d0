/** The provider's key ring (migration 008's `key_ring`), sealed at rest, and its SQL (rotation: keys/). */
import { isSealed, type SecretBox } from '../crypto/secret-box.js';
import type { Sql } from '../db/sql.js';

/** What a key of the ring is for: the provider's RS256 token signatures, or its (and the sign-in pages') cookies. */
export type KeyPurpose = 'signing' | 'cookie';

export const KEY_PURPOSES: readonly KeyPurpose[] = ['signing', 'cookie'];

/** One key of the ring. Times are ms since the epoch (src/keys/timeline.ts says what each one means). */
export interface StoredKey {
  /** signing: the RFC 7638 thumbprint of the public key, its JWKS `kid`; cookie: a random id. */
  kid: string;
  purpose: KeyPurpose;
  /** signing: the private JWK as JSON; cookie: 32 random bytes, base64url. */
  material: string;
  /** Published and accepted from then on. */
  createdAt: number;
  /** Signs from then on (until a newer key's signsFrom). */
  signsFrom: number;
  /** Its successor's signsFrom; null while it has none. */
  signsUntil: number | null;
  /** Neither published nor accepted from then on; null while it has no successor. */
  retiredAt: number | null;
}

interface KeyRow {
  kid: string;
  purpose: string;
  material: string;
  created_at: number;
  signs_from: number;
  signs_until: number | null;
  retired_at: number | null;
}

function keyOf(row: KeyRow, box: SecretBox): StoredKey {
  if (row.purpose !== 'signing' && row.purpose !== 'cookie') {
    throw new Error(`key_ring: key ${row.kid} has an unknown purpose "${row.purpose}"`);
  }
  return {
    kid: row.kid,
    purpose: row.purpose,
    // A clear row is one an older server wrote: start-up seals it (keys/at-rest.ts), a reader still takes it.
    material: isSealed(row.material) ? box.open(row.material, row.kid) : row.material,
    createdAt: Number(row.created_at),
    signsFrom: Number(row.signs_from),
    signsUntil: row.signs_until === null ? null : Number(row.signs_until),
    retiredAt: row.retired_at === null ? null : Number(row.retired_at),
  };
}

/**
 * The `key_ring` table, over either database (the SQL is the same in both dialects). Each key's material is
 * sealed with KEY_RING_ENCRYPTION_KEY (AES-256-GCM, the kid as additional data): a copy of the database holds
 * no private key, and a material moved onto another kid does not open.
 */
export class KeyRingStore {
  constructor(
    private readonly sql: Sql,
    private readonly box: SecretBox,
  ) {}

  /** Every key, oldest first (retired ones too until `deleteRetired` removes them). */
  async all(): Promise<StoredKey[]> {
    const rows = await this.sql.all<KeyRow>(
      `SELECT kid, purpose, material, created_at, signs_from, signs_until, retired_at
         FROM key_ring ORDER BY signs_from, created_at, kid`,
    );
    return rows.map((row) => keyOf(row, this.box));
  }

  async insert(key: StoredKey): Promise<void> {
    await this.sql.run(
      `INSERT INTO key_ring (kid, purpose, material, created_at, signs_from, signs_until, retired_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [
        key.kid,
        key.purpose,
        this.box.seal(key.material, key.kid),
        key.createdAt,
        key.signsFrom,
        key.signsUntil,
        key.retiredAt,
      ],
    );
  }

  /** Ends a key's signing at its successor's start and schedules its retirement. */
  async succeed(kid: string, signsUntil: number, retiredAt: number): Promise<void> {
    await this.sql.run('UPDATE key_ring SET signs_until = ?, retired_at = ? WHERE kid = ?', [
      signsUntil,
      retiredAt,
      kid,
    ]);
  }

  /** Deletes the keys retired at or before `now`: no private material outlives its use. How many went. */
  async deleteRetired(now: number): Promise<number> {
    const { changes } = await this.sql.run(
      'DELETE FROM key_ring WHERE retired_at IS NOT NULL AND retired_at <= ?',
      [now],
    );
    return changes;
  }

  /**
   * `work` inside one write transaction, with a store bound to it. Write transactions are serialised on every
   * instance (db/sql.ts), so a check of the newest key inside one sees no concurrent rotation.
   */
  transaction<T>(work: (store: KeyRingStore) => Promise<T>): Promise<T> {
    return this.sql.transaction((tx) => work(new KeyRingStore(tx, this.box)));
  }
}
