/**
 * The factors part of an identity backend: the account's 2-step factors, their set-up, their codes and their
 * states. Whatever differs by kind of factor is the kind's module (kinds/), which each backend calls.
 */
import type { FactorName, FactorTurnOff } from 'shared-auth/contract';
import type { User } from '../storage/users.js';
import type { Storage } from '../storage/index.js';
import type { FactorEnrolment } from './kinds/kind.js';

export interface IdentityFactors {
  /**
   * What `setEnabled(…, false)` does, told to the page with the factors' details (`turnOff`), so its texts say
   * what happens: 'keeps' (the factor stays set up, turned off) or 'removes' (Okta: gone, to be set up again).
   */
  readonly factorTurnOff: FactorTurnOff;

  /**
   * Present when the backend's data is in the portal's own database (embedded): the backend reading and writing
   * through the portal's write transaction `tx`. A service then runs its checks, the backend's change and its own
   * writes (grants, ended sessions, the notice) in that one transaction, so what it checked still holds when the
   * change commits, and everything commits together. Absent when the data is elsewhere (Okta): the service calls
   * the backend outside any transaction (the database's write lock is never held across a call to Okta) and
   * writes its own part once the backend made the change.
   */
  inTransaction?(tx: Storage): IdentityFactors;

  /** The account's factors that are set up or being set up (the others do not appear). */
  listFactors(userId: string): Promise<IdentityFactor[]>;

  /**
   * Whether the account has an active 2-step factor of a kind the portal does not manage (Okta: Okta Verify, SMS,
   * a security key…), which listFactors leaves out. It still counts as a factor: the portal cannot check its
   * codes, so a fresh sign-in is the proof a password change needs then. Absent: the backend has no such factors.
   * Okta's passkeys (webauthn) answer here too although the passkeys domain manages them: StepUpService counts only
   * the passkeys of the portal's storage (see OktaFactors.hasUnmanagedActiveFactor).
   */
  hasUnmanagedActiveFactor?(userId: string): Promise<boolean>;

  /**
   * The account's active passkeys the backend keeps itself (Okta: its `webauthn` factors), which the portal's own
   * store does not hold: the last-method rule counts them, so a factor may go while one remains. Absent: the
   * passkeys are all in the portal's store (embedded).
   */
  countPasskeys?(userId: string): Promise<number>;

  /**
   * Starts setting up a factor, the factor pending until `activate`: what the page needs to go on (the
   * authenticator app: a new secret, replacing a pending set-up; email: a code sent, again for a pending
   * set-up). Refused with API_ERRORS.factorState when it is already set up.
   */
  enrol(user: User, type: FactorName): Promise<FactorEnrolment>;

  /**
   * Checks the code of the pending factor: undefined for a wrong, used or expired code; otherwise the
   * activation, which `commit` stores inside the caller's write transaction and which answers the factor as
   * active (embedded: pending → active, compare-and-set; Okta: already active). Refused with
   * API_ERRORS.factorState when no set-up of that factor is pending.
   */
  activate(userId: string, type: FactorName, code: string): Promise<Activation | undefined>;

  /** Sends a verification code to the account's email (step-up, sign-in). Refused with factorState when email is not active. */
  sendVerificationEmail(user: User): Promise<void>;

  /** Checks (and uses up) a code of an active factor: false when wrong, used or expired. Refused with factorState when not active. */
  verify(userId: string, type: FactorName, code: string): Promise<boolean>;

  /**
   * Turns a set-up factor on or off: the factor as it is afterwards. Embedded: off keeps it set up (INACTIVE),
   * on makes it ACTIVE again. Okta has no "off" for one factor: off removes the enrolment (undefined afterwards,
   * so Okta's own sign-in stops asking for it), and there is nothing to turn on.
   */
  setEnabled(userId: string, type: FactorName, enabled: boolean): Promise<IdentityFactor | undefined>;

  /** Removes the factor, set up or pending; nothing happens when there is none. */
  remove(userId: string, type: FactorName): Promise<void>;
}

/** A factor's code was right: `commit` stores the activation in the caller's transaction. */
export interface Activation {
  commit(tx: Storage): Promise<IdentityFactor>;
}

/** One of the account's factors. */
export interface IdentityFactor {
  type: FactorName;
  /** INACTIVE: set up but turned off (embedded only). */
  status: 'PENDING_ACTIVATION' | 'ACTIVE' | 'INACTIVE';
  /** When it was activated (ISO date); null while pending. */
  enrolledAt: string | null;
}
