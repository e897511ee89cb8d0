/**
 * WebAuthn challenges (migration 015's `webauthn_challenges`): each ceremony's challenge, kept only as its SHA-256,
 * for one purpose, bound to a user and to the session (or sign-in interaction) that asked. Consumed by a DELETE
 * whose row count says who won, so a challenge is used once even by instances sharing one PostgreSQL.
 */
import type { Sql } from '../db/sql.js';

export type ChallengePurpose = 'registration' | 'authentication';

export interface WebAuthnChallenge {
  challengeHash: string;
  purpose: ChallengePurpose;
  /** The user it was issued to; null for a sign-in with a discoverable passkey (no user known yet). */
  userId: string | null;
  /** A hash of the sign-in session's grant chain, or of the sign-in interaction, that asked. */
  binding: string;
  expiresAt: number;
}

export interface WebAuthnChallengeStore {
  put(challenge: WebAuthnChallenge): Promise<void>;
  /**
   * Takes the challenge of this hash and purpose out, whatever its binding or expiry (the caller checks those):
   * exactly one of any number of racing callers gets it; the others, and a used or unknown one, get undefined.
   */
  consume(challengeHash: string, purpose: ChallengePurpose): Promise<WebAuthnChallenge | undefined>;
  /** Deletes the challenges expired at `now`; returns how many. */
  prune(now: number): Promise<number>;
}

interface Row {
  challenge_hash: string;
  purpose: ChallengePurpose;
  user_id: string | null;
  binding: string;
  expires_at: number;
}

/** WebAuthn challenges over `Sql`. */
export class SqlWebAuthnChallengeStore implements WebAuthnChallengeStore {
  constructor(private readonly sql: Sql) {}

  async put(challenge: WebAuthnChallenge): Promise<void> {
    await this.sql.run(
      `INSERT INTO webauthn_challenges (challenge_hash, purpose, user_id, binding, expires_at)
       VALUES (?, ?, ?, ?, ?)`,
      [challenge.challengeHash, challenge.purpose, challenge.userId, challenge.binding, challenge.expiresAt],
    );
  }

  async consume(challengeHash: string, purpose: ChallengePurpose): Promise<WebAuthnChallenge | undefined> {
    const row = await this.sql.get<Row>(
      `SELECT challenge_hash, purpose, user_id, binding, expires_at FROM webauthn_challenges
       WHERE challenge_hash = ? AND purpose = ?`,
      [challengeHash, purpose],
    );
    if (!row) return undefined;
    // The DELETE is the use: of two readers of the row, only one deletes it.
    const { changes } = await this.sql.run(
      'DELETE FROM webauthn_challenges WHERE challenge_hash = ? AND purpose = ?',
      [challengeHash, purpose],
    );
    if (changes !== 1) return undefined;
    return {
      challengeHash: row.challenge_hash,
      purpose: row.purpose,
      userId: row.user_id,
      binding: row.binding,
      expiresAt: Number(row.expires_at),
    };
  }

  async prune(now: number): Promise<number> {
    return (await this.sql.run('DELETE FROM webauthn_challenges WHERE expires_at <= ?', [now])).changes;
  }
}
