import type { FactorName } from 'shared-auth/contract';
import type { Db } from '../db/connection.js';

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
  factors(userId: string): FactorRecord[];
  factor(userId: string, type: FactorName): FactorRecord | undefined;
  /** Creates the factor, or resets it, as PENDING_ACTIVATION with this secret. */
  putPending(userId: string, type: FactorName, secretEnc: string | null, now: number): void;
  /** PENDING_ACTIVATION → ACTIVE; false when the factor was not pending. */
  activate(userId: string, type: FactorName, lastStep: number | null, now: number): boolean;
  setStatus(userId: string, type: FactorName, status: StoredStatus, now: number): void;
  /** Remembers the last accepted TOTP step; never moves it backwards. */
  setLastStep(userId: string, type: FactorName, step: number): void;
  deleteFactor(userId: string, type: FactorName): void;

  emailCode(userId: string): EmailCodeRecord | undefined;
  putEmailCode(code: EmailCodeRecord): void;
  deleteEmailCode(userId: string): void;
  /** Deletes the code only if it is still this one; true when it was (so a code is used once, even racing). */
  consumeEmailCode(userId: string, codeHash: string): boolean;
  /** Deletes the codes expired at `now`; returns how many. */
  pruneCodes(now: number): number;
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

/** Factors and email codes in SQLite (migration 004); statements are prepared once. */
export class SqliteFactorStore implements FactorStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      factors: db.prepare<[string], FactorRow>('SELECT * FROM user_factors WHERE user_id = ? ORDER BY type'),
      factor: db.prepare<[string, string], FactorRow>(
        'SELECT * FROM user_factors WHERE user_id = ? AND type = ?',
      ),
      upsertPending: db.prepare<{ user_id: string; type: string; secret_enc: string | null; now: string }>(
        `INSERT INTO user_factors (user_id, type, status, secret_enc, last_step, enrolled_at, updated_at)
         VALUES (@user_id, @type, 'PENDING_ACTIVATION', @secret_enc, NULL, NULL, @now)
         ON CONFLICT (user_id, type) DO UPDATE SET
           status = 'PENDING_ACTIVATION', secret_enc = @secret_enc, last_step = NULL, enrolled_at = NULL,
           updated_at = @now`,
      ),
      activate: db.prepare<{ user_id: string; type: string; last_step: number | null; now: string }>(
        `UPDATE user_factors SET status = 'ACTIVE', enrolled_at = @now, last_step = coalesce(@last_step, last_step),
           updated_at = @now
         WHERE user_id = @user_id AND type = @type AND status = 'PENDING_ACTIVATION'`,
      ),
      setStatus: db.prepare<{ user_id: string; type: string; status: string; now: string }>(
        'UPDATE user_factors SET status = @status, updated_at = @now WHERE user_id = @user_id AND type = @type',
      ),
      setLastStep: db.prepare<{ user_id: string; type: string; last_step: number }>(
        `UPDATE user_factors SET last_step = @last_step
         WHERE user_id = @user_id AND type = @type AND (last_step IS NULL OR last_step < @last_step)`,
      ),
      deleteFactor: db.prepare<[string, string]>('DELETE FROM user_factors WHERE user_id = ? AND type = ?'),

      emailCode: db.prepare<[string], EmailCodeRow>('SELECT * FROM email_codes WHERE user_id = ?'),
      putEmailCode: db.prepare<EmailCodeRow>(
        `INSERT INTO email_codes (user_id, purpose, code_hash, sent_at, expires_at)
         VALUES (@user_id, @purpose, @code_hash, @sent_at, @expires_at)
         ON CONFLICT (user_id) DO UPDATE SET purpose = @purpose, code_hash = @code_hash, sent_at = @sent_at,
           expires_at = @expires_at`,
      ),
      deleteEmailCode: db.prepare<[string]>('DELETE FROM email_codes WHERE user_id = ?'),
      deleteEmailCodeIf: db.prepare<[string, string]>(
        'DELETE FROM email_codes WHERE user_id = ? AND code_hash = ?',
      ),
      pruneCodes: db.prepare<[number]>('DELETE FROM email_codes WHERE expires_at <= ?'),
    };
  }

  factors(userId: string): FactorRecord[] {
    return this.s.factors.all(userId).map(toRecord);
  }

  factor(userId: string, type: FactorName): FactorRecord | undefined {
    const row = this.s.factor.get(userId, STORED_TYPE[type]);
    return row && toRecord(row);
  }

  putPending(userId: string, type: FactorName, secretEnc: string | null, now: number): void {
    this.s.upsertPending.run({
      user_id: userId,
      type: STORED_TYPE[type],
      secret_enc: secretEnc,
      now: new Date(now).toISOString(),
    });
  }

  activate(userId: string, type: FactorName, lastStep: number | null, now: number): boolean {
    const result = this.s.activate.run({
      user_id: userId,
      type: STORED_TYPE[type],
      last_step: lastStep,
      now: new Date(now).toISOString(),
    });
    return result.changes === 1;
  }

  setStatus(userId: string, type: FactorName, status: StoredStatus, now: number): void {
    this.s.setStatus.run({
      user_id: userId,
      type: STORED_TYPE[type],
      status,
      now: new Date(now).toISOString(),
    });
  }

  setLastStep(userId: string, type: FactorName, step: number): void {
    this.s.setLastStep.run({ user_id: userId, type: STORED_TYPE[type], last_step: step });
  }

  deleteFactor(userId: string, type: FactorName): void {
    this.s.deleteFactor.run(userId, STORED_TYPE[type]);
  }

  emailCode(userId: string): EmailCodeRecord | undefined {
    const row = this.s.emailCode.get(userId);
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

  putEmailCode(code: EmailCodeRecord): void {
    this.s.putEmailCode.run({
      user_id: code.userId,
      purpose: code.purpose,
      code_hash: code.codeHash,
      sent_at: code.sentAt,
      expires_at: code.expiresAt,
    });
  }

  deleteEmailCode(userId: string): void {
    this.s.deleteEmailCode.run(userId);
  }

  consumeEmailCode(userId: string, codeHash: string): boolean {
    return this.s.deleteEmailCodeIf.run(userId, codeHash).changes === 1;
  }

  pruneCodes(now: number): number {
    return this.s.pruneCodes.run(now).changes;
  }
}
