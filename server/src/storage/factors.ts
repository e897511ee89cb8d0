/** The users' 2-step factors and pending email codes (migration 004): the records, the interface and its SQL. */
import type { FactorName } from 'shared-auth/contract';
import type { Sql } from '../db/sql.js';

export type StoredStatus = 'PENDING_ACTIVATION' | 'ACTIVE' | 'INACTIVE';
export type CodePurpose = 'activate' | 'verify';

/** A user's factor. */
export interface FactorRecord {
  userId: string;
  type: FactorName;
  status: StoredStatus;
  /** The sealed authenticator secret (SecretBox); null for email. */
  secretEnc: string | null;
  /** The last accepted TOTP step (replays are refused). */
  lastStep: number | null;
  /** ISO date, set when activated. */
  enrolledAt: string | null;
}

export interface EmailCodeRecord {
  userId: string;
  purpose: CodePurpose;
  codeHash: string;
  sentAt: number;
  expiresAt: number;
}

/** The users' 2-step factors and their pending email codes (one per user). */
export interface FactorStore {
  factors(userId: string): Promise<FactorRecord[]>;
  factor(userId: string, type: FactorName): Promise<FactorRecord | undefined>;
  /** Creates the factor, or resets it, as PENDING_ACTIVATION with this secret. */
  putPending(userId: string, type: FactorName, secretEnc: string | null, now: number): Promise<void>;
  /** PENDING_ACTIVATION → ACTIVE; false when the factor was not pending. */
  activate(userId: string, type: FactorName, lastStep: number | null, now: number): Promise<boolean>;
  setStatus(userId: string, type: FactorName, status: StoredStatus, now: number): Promise<void>;
  /** Remembers the last accepted TOTP step; never moves it backwards. False when it was not newer. */
  setLastStep(userId: string, type: FactorName, step: number): Promise<boolean>;
  deleteFactor(userId: string, type: FactorName): Promise<void>;

  emailCode(userId: string): Promise<EmailCodeRecord | undefined>;
  putEmailCode(code: EmailCodeRecord): Promise<void>;
  deleteEmailCode(userId: string): Promise<void>;
  /** Deletes the code only if it is still this one; true when it was (so a code is used once, even racing). */
  consumeEmailCode(userId: string, codeHash: string): Promise<boolean>;
  /** Deletes the codes expired at `now`; returns how many. */
  pruneCodes(now: number): Promise<number>;
}

/** As stored in `user_factors.type` (and `stepup_grants.factor`): migration 004's spelling. */
type StoredFactorType = 'google-auth' | 'email';
const STORED_TYPE: Record<FactorName, StoredFactorType> = { googleAuth: 'google-auth', email: 'email' };
const FACTOR_OF_STORED: Record<StoredFactorType, FactorName> = {
  'google-auth': 'googleAuth',
  email: 'email',
};

/** The stored spelling of a factor name. */
export function storedFactorType(type: FactorName): StoredFactorType {
  return STORED_TYPE[type];
}

interface FactorRow {
  user_id: string;
  type: StoredFactorType;
  status: StoredStatus;
  secret_enc: string | null;
  last_step: number | null;
  enrolled_at: string | null;
  updated_at: string;
}

interface EmailCodeRow {
  user_id: string;
  purpose: CodePurpose;
  code_hash: string;
  sent_at: number;
  expires_at: number;
}

function toRecord(row: FactorRow): FactorRecord {
  return {
    userId: row.user_id,
    type: FACTOR_OF_STORED[row.type],
    status: row.status,
    secretEnc: row.secret_enc,
    lastStep: row.last_step,
    enrolledAt: row.enrolled_at,
  };
}

/** Factors and email codes (migration 004) over `Sql`. */
export class SqlFactorStore implements FactorStore {
  constructor(private readonly sql: Sql) {}

  async factors(userId: string): Promise<FactorRecord[]> {
    const rows = await this.sql.all<FactorRow>('SELECT * FROM user_factors WHERE user_id = ? ORDER BY type', [
      userId,
    ]);
    return rows.map(toRecord);
  }

  async factor(userId: string, type: FactorName): Promise<FactorRecord | undefined> {
    const row = await this.sql.get<FactorRow>('SELECT * FROM user_factors WHERE user_id = ? AND type = ?', [
      userId,
      STORED_TYPE[type],
    ]);
    return row && toRecord(row);
  }

  async putPending(userId: string, type: FactorName, secretEnc: string | null, now: number): Promise<void> {
    await this.sql.run(
      `INSERT INTO user_factors (user_id, type, status, secret_enc, last_step, enrolled_at, updated_at)
       VALUES (?, ?, 'PENDING_ACTIVATION', ?, NULL, NULL, ?)
       ON CONFLICT (user_id, type) DO UPDATE SET
         status = 'PENDING_ACTIVATION', secret_enc = excluded.secret_enc, last_step = NULL, enrolled_at = NULL,
         updated_at = excluded.updated_at`,
      [userId, STORED_TYPE[type], secretEnc, new Date(now).toISOString()],
    );
  }

  async activate(userId: string, type: FactorName, lastStep: number | null, now: number): Promise<boolean> {
    const at = new Date(now).toISOString();
    const { changes } = await this.sql.run(
      `UPDATE user_factors SET status = 'ACTIVE', enrolled_at = ?, last_step = coalesce(?, last_step),
         updated_at = ?
       WHERE user_id = ? AND type = ? AND status = 'PENDING_ACTIVATION'`,
      [at, lastStep, at, userId, STORED_TYPE[type]],
    );
    return changes === 1;
  }

  async setStatus(userId: string, type: FactorName, status: StoredStatus, now: number): Promise<void> {
    await this.sql.run('UPDATE user_factors SET status = ?, updated_at = ? WHERE user_id = ? AND type = ?', [
      status,
      new Date(now).toISOString(),
      userId,
      STORED_TYPE[type],
    ]);
  }

  async setLastStep(userId: string, type: FactorName, step: number): Promise<boolean> {
    const { changes } = await this.sql.run(
      `UPDATE user_factors SET last_step = ?
       WHERE user_id = ? AND type = ? AND (last_step IS NULL OR last_step < ?)`,
      [step, userId, STORED_TYPE[type], step],
    );
    return changes === 1;
  }

  async deleteFactor(userId: string, type: FactorName): Promise<void> {
    await this.sql.run('DELETE FROM user_factors WHERE user_id = ? AND type = ?', [
      userId,
      STORED_TYPE[type],
    ]);
  }

  async emailCode(userId: string): Promise<EmailCodeRecord | undefined> {
    const row = await this.sql.get<EmailCodeRow>('SELECT * FROM email_codes WHERE user_id = ?', [userId]);
    return (
      row && {
        userId: row.user_id,
        purpose: row.purpose,
        codeHash: row.code_hash,
        sentAt: row.sent_at,
        expiresAt: row.expires_at,
      }
    );
  }

  async putEmailCode(code: EmailCodeRecord): Promise<void> {
    await this.sql.run(
      `INSERT INTO email_codes (user_id, purpose, code_hash, sent_at, expires_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (user_id) DO UPDATE SET purpose = excluded.purpose, code_hash = excluded.code_hash,
         sent_at = excluded.sent_at, expires_at = excluded.expires_at`,
      [code.userId, code.purpose, code.codeHash, code.sentAt, code.expiresAt],
    );
  }

  async deleteEmailCode(userId: string): Promise<void> {
    await this.sql.run('DELETE FROM email_codes WHERE user_id = ?', [userId]);
  }

  async consumeEmailCode(userId: string, codeHash: string): Promise<boolean> {
    const { changes } = await this.sql.run('DELETE FROM email_codes WHERE user_id = ? AND code_hash = ?', [
      userId,
      codeHash,
    ]);
    return changes === 1;
  }

  async pruneCodes(now: number): Promise<number> {
    return (await this.sql.run('DELETE FROM email_codes WHERE expires_at <= ?', [now])).changes;
  }
}
