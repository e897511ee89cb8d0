import type { Db } from '../db/connection.js';

/** Factor types as stored and as named in the step-up paths. */
export type FactorType = 'google-auth' | 'email';
export type StoredStatus = 'PENDING_ACTIVATION' | 'ACTIVE' | 'INACTIVE';
export type CodePurpose = 'activate' | 'verify';
export type ThrottleKind = 'wrong-code' | 'email-send';
/** What a step-up grant was earned with: a factor's code, or the password again (first factor only). */
export type GrantProof = FactorType | 'password';

export interface FactorRow {
  user_id: string;
  type: FactorType;
  status: StoredStatus;
  secret_enc: string | null;
  last_step: number | null;
  enrolled_at: string | null;
  updated_at: string;
}

export interface EmailCodeRow {
  user_id: string;
  purpose: CodePurpose;
  code_hash: string;
  sent_at: number;
  expires_at: number;
}

/** The SQL of factors, email codes, step-up grants and throttle events; statements are prepared once. */
export class FactorStore {
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

      // Step-up grants come from a 2-step code; a 'password' grant (reauthenticate) only lets a user without
      // any factor turn on the first one.
      grant: db.prepare<[string, string, number], { expires_at: number }>(
        `SELECT expires_at FROM stepup_grants
         WHERE user_id = ? AND session_id = ? AND expires_at > ? AND factor <> 'password'`,
      ),
      passwordGrant: db.prepare<[string, string, number], { expires_at: number }>(
        `SELECT expires_at FROM stepup_grants
         WHERE user_id = ? AND session_id = ? AND expires_at > ? AND factor = 'password'`,
      ),
      // @keys: a JSON array of session keys.
      deleteGrantsOf: db.prepare<{ user_id: string; keys: string }>(
        'DELETE FROM stepup_grants WHERE user_id = @user_id AND session_id IN (SELECT value FROM json_each(@keys))',
      ),
      deleteOtherGrants: db.prepare<{ user_id: string; keep: string }>(
        'DELETE FROM stepup_grants WHERE user_id = @user_id AND session_id <> @keep',
      ),
      putGrant: db.prepare<{ user_id: string; session_id: string; factor: string; expires_at: number }>(
        `INSERT INTO stepup_grants (user_id, session_id, factor, expires_at)
         VALUES (@user_id, @session_id, @factor, @expires_at)
         ON CONFLICT (user_id, session_id) DO UPDATE SET factor = @factor, expires_at = @expires_at`,
      ),

      events: db.prepare<[string, string, number], { at: number }>(
        'SELECT at FROM factor_throttle_events WHERE user_id = ? AND kind = ? AND at > ? ORDER BY at',
      ),
      addEvent: db.prepare<[string, string, number]>(
        'INSERT INTO factor_throttle_events (user_id, kind, at) VALUES (?, ?, ?)',
      ),
      removeEvent: db.prepare<[string, string, number]>(
        `DELETE FROM factor_throttle_events WHERE rowid = (
           SELECT rowid FROM factor_throttle_events WHERE user_id = ? AND kind = ? AND at = ? LIMIT 1)`,
      ),
      clearEvents: db.prepare<[string, string]>(
        'DELETE FROM factor_throttle_events WHERE user_id = ? AND kind = ?',
      ),

      pruneGrants: db.prepare<[number]>('DELETE FROM stepup_grants WHERE expires_at <= ?'),
      pruneCodes: db.prepare<[number]>('DELETE FROM email_codes WHERE expires_at <= ?'),
      pruneEvents: db.prepare<[number]>('DELETE FROM factor_throttle_events WHERE at <= ?'),
    };
  }

  factors(userId: string): FactorRow[] {
    return this.s.factors.all(userId);
  }

  factor(userId: string, type: FactorType): FactorRow | undefined {
    return this.s.factor.get(userId, type);
  }

  putPending(userId: string, type: FactorType, secretEnc: string | null, now: number): void {
    this.s.upsertPending.run({
      user_id: userId,
      type,
      secret_enc: secretEnc,
      now: new Date(now).toISOString(),
    });
  }

  /** PENDING_ACTIVATION → ACTIVE; false when the factor was not pending. */
  activate(userId: string, type: FactorType, lastStep: number | null, now: number): boolean {
    const result = this.s.activate.run({
      user_id: userId,
      type,
      last_step: lastStep,
      now: new Date(now).toISOString(),
    });
    return result.changes === 1;
  }

  setStatus(userId: string, type: FactorType, status: StoredStatus, now: number): void {
    this.s.setStatus.run({ user_id: userId, type, status, now: new Date(now).toISOString() });
  }

  /** Remembers the last accepted TOTP step; never moves it backwards. */
  setLastStep(userId: string, type: FactorType, step: number): void {
    this.s.setLastStep.run({ user_id: userId, type, last_step: step });
  }

  deleteFactor(userId: string, type: FactorType): void {
    this.s.deleteFactor.run(userId, type);
  }

  emailCode(userId: string): EmailCodeRow | undefined {
    return this.s.emailCode.get(userId);
  }

  putEmailCode(row: EmailCodeRow): void {
    this.s.putEmailCode.run(row);
  }

  deleteEmailCode(userId: string): void {
    this.s.deleteEmailCode.run(userId);
  }

  /** Deletes the code only if it is still this one; true when it was (so a code is used once, even racing). */
  consumeEmailCode(userId: string, codeHash: string): boolean {
    return this.s.deleteEmailCodeIf.run(userId, codeHash).changes === 1;
  }

  grantExpiry(userId: string, sessionId: string, now: number): number | undefined {
    return this.s.grant.get(userId, sessionId, now)?.expires_at;
  }

  passwordGrantExpiry(userId: string, sessionId: string, now: number): number | undefined {
    return this.s.passwordGrant.get(userId, sessionId, now)?.expires_at;
  }

  putGrant(userId: string, sessionId: string, proof: GrantProof, expiresAt: number): void {
    this.s.putGrant.run({ user_id: userId, session_id: sessionId, factor: proof, expires_at: expiresAt });
  }

  /** Ends the grants of these sessions (they were signed out or revoked). */
  deleteGrantsOf(userId: string, sessionIds: string[]): number {
    return this.s.deleteGrantsOf.run({ user_id: userId, keys: JSON.stringify(sessionIds) }).changes;
  }

  /** Ends the grants of every session of the user but `keepSessionId`. */
  deleteOtherGrants(userId: string, keepSessionId: string): number {
    return this.s.deleteOtherGrants.run({ user_id: userId, keep: keepSessionId }).changes;
  }

  eventsSince(userId: string, kind: ThrottleKind, since: number): number[] {
    return this.s.events.all(userId, kind, since).map((row) => row.at);
  }

  addEvent(userId: string, kind: ThrottleKind, at: number): void {
    this.s.addEvent.run(userId, kind, at);
  }

  removeEvent(userId: string, kind: ThrottleKind, at: number): void {
    this.s.removeEvent.run(userId, kind, at);
  }

  clearEvents(userId: string, kind: ThrottleKind): void {
    this.s.clearEvents.run(userId, kind);
  }

  /** Deletes expired grants and codes, and throttle events older than `eventsBefore`. */
  prune(now: number, eventsBefore: number): number {
    return (
      this.s.pruneGrants.run(now).changes +
      this.s.pruneCodes.run(now).changes +
      this.s.pruneEvents.run(eventsBefore).changes
    );
  }
}
