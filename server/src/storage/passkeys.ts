/**
 * Passkeys (migration 015's `passkeys`): the holder's WebAuthn credentials, the interface and its SQL. What
 * registers, checks and names them: passkeys/.
 */
import { isUniqueViolation, type Sql } from '../db/sql.js';

/** One registered credential, as stored. */
export interface PasskeyRecord {
  /** The server's id (the key of rename and remove), never the credential id. */
  id: string;
  userId: string;
  /** The credential id, base64url: unique across every account. */
  credentialId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The last signature counter accepted. */
  counter: number;
  transports: string[];
  aaguid: string;
  backedUp: boolean;
  deviceType: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  /** When its counter went backwards (a cloned authenticator suspected): refused from then on. */
  clonedAt: number | null;
}

export type NewPasskey = Omit<PasskeyRecord, 'lastUsedAt' | 'clonedAt'>;

export interface PasskeyStore {
  /** The user's passkeys, oldest first (the cloned ones too: the page shows them so the holder removes them). */
  list(userId: string): Promise<PasskeyRecord[]>;
  /** The user's passkeys that still count (not marked cloned): the active 2-step methods they are. */
  countUsable(userId: string): Promise<number>;
  /** One passkey of this user by the server's id; undefined for another user's. */
  get(userId: string, id: string): Promise<PasskeyRecord | undefined>;
  /** The passkey of a credential id, whoever holds it (a discoverable sign-in knows no user). */
  byCredentialId(credentialId: string): Promise<PasskeyRecord | undefined>;
  /** Stores a new passkey; false when its credential id is registered already (to any account). */
  insert(passkey: NewPasskey): Promise<boolean>;
  /** Renames one of the user's passkeys; false when it is not the user's. */
  rename(userId: string, id: string, name: string): Promise<boolean>;
  /**
   * Records a use: the new counter and when, only if the stored counter is still `expected` and it is not marked
   * cloned (a compare-and-set, so two racing uses of one assertion cannot both count).
   */
  recordUse(id: string, expected: number, counter: number, now: number): Promise<boolean>;
  /** Marks it cloned (refused from then on); false when it already was. */
  markCloned(id: string, now: number): Promise<boolean>;
  /** Deletes one of the user's passkeys; false when it is not the user's. */
  remove(userId: string, id: string): Promise<boolean>;
}

interface Row {
  id: string;
  user_id: string;
  credential_id: string;
  public_key: string;
  counter: number;
  transports: string;
  aaguid: string;
  backed_up: number;
  device_type: string;
  name: string;
  created_at: number;
  last_used_at: number | null;
  cloned_at: number | null;
}

function recordOf(row: Row): PasskeyRecord {
  return {
    id: row.id,
    userId: row.user_id,
    credentialId: row.credential_id,
    publicKey: row.public_key,
    counter: Number(row.counter),
    transports: row.transports === '' ? [] : row.transports.split(','),
    aaguid: row.aaguid,
    backedUp: Number(row.backed_up) === 1,
    deviceType: row.device_type,
    name: row.name,
    createdAt: Number(row.created_at),
    lastUsedAt: row.last_used_at === null ? null : Number(row.last_used_at),
    clonedAt: row.cloned_at === null ? null : Number(row.cloned_at),
  };
}

const COLUMNS = `id, user_id, credential_id, public_key, counter, transports, aaguid, backed_up, device_type, name,
  created_at, last_used_at, cloned_at`;

/** Passkeys over `Sql`. */
export class SqlPasskeyStore implements PasskeyStore {
  constructor(private readonly sql: Sql) {}

  async list(userId: string): Promise<PasskeyRecord[]> {
    const rows = await this.sql.all<Row>(
      `SELECT ${COLUMNS} FROM passkeys WHERE user_id = ? ORDER BY created_at, id`,
      [userId],
    );
    return rows.map(recordOf);
  }

  async countUsable(userId: string): Promise<number> {
    const row = await this.sql.get<{ n: number }>(
      'SELECT count(*) AS n FROM passkeys WHERE user_id = ? AND cloned_at IS NULL',
      [userId],
    );
    return Number(row?.n ?? 0);
  }

  async get(userId: string, id: string): Promise<PasskeyRecord | undefined> {
    const row = await this.sql.get<Row>(`SELECT ${COLUMNS} FROM passkeys WHERE user_id = ? AND id = ?`, [
      userId,
      id,
    ]);
    return row && recordOf(row);
  }

  async byCredentialId(credentialId: string): Promise<PasskeyRecord | undefined> {
    const row = await this.sql.get<Row>(`SELECT ${COLUMNS} FROM passkeys WHERE credential_id = ?`, [
      credentialId,
    ]);
    return row && recordOf(row);
  }

  async insert(passkey: NewPasskey): Promise<boolean> {
    try {
      await this.sql.run(
        `INSERT INTO passkeys (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL)`,
        [
          passkey.id,
          passkey.userId,
          passkey.credentialId,
          passkey.publicKey,
          passkey.counter,
          passkey.transports.join(','),
          passkey.aaguid,
          passkey.backedUp ? 1 : 0,
          passkey.deviceType,
          passkey.name,
          passkey.createdAt,
        ],
      );
      return true;
    } catch (error) {
      // The unique credential id: registered already, to this account or another.
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async rename(userId: string, id: string, name: string): Promise<boolean> {
    const { changes } = await this.sql.run('UPDATE passkeys SET name = ? WHERE user_id = ? AND id = ?', [
      name,
      userId,
      id,
    ]);
    return changes === 1;
  }

  async recordUse(id: string, expected: number, counter: number, now: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE passkeys SET counter = ?, last_used_at = ?
       WHERE id = ? AND counter = ? AND cloned_at IS NULL`,
      [counter, now, id, expected],
    );
    return changes === 1;
  }

  async markCloned(id: string, now: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      'UPDATE passkeys SET cloned_at = ? WHERE id = ? AND cloned_at IS NULL',
      [now, id],
    );
    return changes === 1;
  }

  async remove(userId: string, id: string): Promise<boolean> {
    const { changes } = await this.sql.run('DELETE FROM passkeys WHERE user_id = ? AND id = ?', [userId, id]);
    return changes === 1;
  }
}
