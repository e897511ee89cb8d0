import type { FactorName } from 'shared-auth/contract';
import type { ProfileChanges, User } from '../directory/store.js';

/**
 * The identity backend: where the account's profile, password and 2-step factors live. Two implement it: the
 * embedded one (the portal's own directory and factor tables) and Okta (`okta/identity.ts`), selected by
 * configuration. It holds the account data only: what the caller may do (step-up grants, the portal's password
 * policy, throttles, notices, ending the other sessions) stays with the services that call it.
 *
 * Refusals are HttpErrors with the contract's codes and texts (API_ERRORS), so a route answers the same whichever
 * backend holds the account; anything unforeseen is a 5xx.
 */
export interface IdentityBackend {
  /** The account, or undefined when the id is unknown. Asked on every authenticated call. */
  findById(userId: string): Promise<User | undefined>;

  /** Changes only the fields given (a partial update); the account as stored after it, undefined when unknown. */
  updateProfile(userId: string, changes: ProfileChanges): Promise<User | undefined>;

  /**
   * Replaces the password when `oldPassword` is the current one. Refusals: API_ERRORS.wrongPassword (with
   * PASSWORD_CHANGE_ERRORS.wrongCurrentPassword), API_ERRORS.passwordPolicy (with the backend's own policy text,
   * which the page shows in its dialog), API_ERRORS.federatedUser, API_ERRORS.notFound.
   */
  changePassword(userId: string, oldPassword: string, newPassword: string): Promise<void>;

  /** The account's 2-step factors that are set up or being set up (the others do not appear). */
  listFactors(userId: string): Promise<IdentityFactor[]>;

  /**
   * Starts setting up the authenticator app: a new secret (a pending set-up is replaced), the factor pending
   * until `activate`. Refused with API_ERRORS.factorState when it is already set up.
   */
  enrollAuthenticator(user: User): Promise<AuthenticatorEnrolment>;

  /**
   * Starts setting up email verification: a code is sent to the account's email (again, for a pending set-up),
   * the factor pending until `activate`. Refused with API_ERRORS.factorState when it is already set up.
   */
  enrollEmail(user: User): Promise<void>;

  /**
   * Activates the pending factor with its code: false for a wrong, used or expired code. Refused with
   * API_ERRORS.factorState when no set-up of that factor is pending.
   */
  activate(userId: string, type: FactorName, code: string): Promise<boolean>;

  /** Sends a verification code to the account's email (step-up). Refused with factorState when email is not set up. */
  sendVerificationEmail(userId: string): Promise<void>;

  /** Checks a code of an active factor: false when wrong, used or expired. Refused with factorState when not set up. */
  verify(userId: string, type: FactorName, code: string): Promise<boolean>;

  /** Removes the factor, set up or pending; nothing happens when there is none. */
  remove(userId: string, type: FactorName): Promise<void>;

  /** Ends the account's sessions in the backend (see each implementation for which ones). */
  endSessions(userId: string): Promise<void>;
}

/** One of the account's factors. */
export interface IdentityFactor {
  type: FactorName;
  status: 'PENDING_ACTIVATION' | 'ACTIVE';
  /** When it was set up (ISO date); null while pending. */
  enrolledAt: string | null;
  /** The backend's id of the enrolment (Okta's factor id). */
  factorId: string;
}

/** What the page needs to add the account to an authenticator app. */
export interface AuthenticatorEnrolment {
  /** The shared secret, base32 (typed in by hand). */
  secret: string;
  /** The otpauth:// URI (Key Uri Format) the page draws as a QR code. */
  qrLink: string;
}
