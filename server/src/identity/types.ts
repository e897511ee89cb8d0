import type { FactorName, FactorTurnOff } from 'shared-auth/contract';
import type { ProfileChanges, User } from '../directory/store.js';
import type { Storage } from '../storage/index.js';

/** Which backend holds the accounts (IDENTITY_BACKEND). */
export type IdentityBackendKind = 'embedded' | 'okta';

/**
 * The identity backend: where the account's profile, password and 2-step factors live. Two implement it, selected
 * by IDENTITY_BACKEND: `embedded` (`embedded/identity.ts`: the portal's own directory and factor tables) and `okta`
 * (`okta/identity.ts`: Okta's Management API). It holds the account data only: what the caller may do (step-up
 * grants, the portal's password policy, throttles, the last-factor rule, ending the other sessions, notices) stays
 * with the services that call it (FactorService, the password change), so every route answers the same whichever
 * backend holds the account.
 *
 * Refusals are HttpErrors with the contract's codes and texts (API_ERRORS); anything unforeseen is a 5xx.
 */
export interface IdentityBackend {
  readonly kind: IdentityBackendKind;

  /**
   * What `setEnabled(…, false)` does, told to the page with the factors' details (`turnOff`), so its texts say
   * what happens: 'keeps' (the factor stays set up, turned off) or 'removes' (Okta: gone, to be set up again).
   */
  readonly factorTurnOff: FactorTurnOff;

  /**
   * Whether `verifyPassword` can check the password. When it cannot (Okta), "Confirm it's you" is proven by a new
   * sign-in only, and the 403 reauthentication_required says so (proof: 'sign-in').
   */
  readonly canCheckPasswords: boolean;

  /**
   * Present when the backend's data is in the portal's own database (embedded): the backend reading and writing
   * through the portal's write transaction `tx`. A service then runs its checks, the backend's change and its own
   * writes (grants, ended sessions, the notice) in that one transaction, so what it checked still holds when the
   * change commits, and everything commits together. Absent when the data is elsewhere (Okta): the service calls
   * the backend outside any transaction (the database's write lock is never held across a call to Okta) and
   * writes its own part once the backend made the change.
   */
  inTransaction?(tx: Storage): IdentityBackend;

  // ---- The account ------------------------------------------------------------------------------------------

  /** The account as the backend holds it now, or undefined when the id is unknown (or may no longer act). */
  findById(userId: string): Promise<User | undefined>;

  /**
   * The account on the per-call path (the /api auth hook, on every authenticated call): `cached` when it came from
   * a short per-instance cache instead of the backend (Okta mode, so a call does not cost a Management API call);
   * a route that shows the account's data reads `findById` then.
   */
  findCaller(userId: string): Promise<{ user: User | undefined; cached: boolean }>;

  /**
   * Revokes the account's refresh tokens for these OAuth clients where the backend's authorization server keeps
   * them, leaving its sign-in sessions (Okta: DELETE /api/v1/users/{userId}/clients/{clientId}/tokens). Called
   * after a password or 2-step change, outside any transaction. Absent when the portal's own provider holds the
   * tokens (embedded: they end in the change's transaction).
   */
  revokeRefreshTokens?(userId: string, clientIds: readonly string[]): Promise<void>;

  /** Changes only the fields given (a partial update); the account as stored after it, undefined when unknown. */
  updateProfile(userId: string, changes: ProfileChanges): Promise<User | undefined>;

  // ---- The password -----------------------------------------------------------------------------------------
  // `beforeCheck` runs right before the password is checked: the caller counts the attempt there (its throttle),
  // so an attempt that cannot be counted is refused before anything was checked, and refusals that need no
  // check (an unknown account, no password here) are not counted.

  /**
   * Checks the account's current password ("Confirm it's you"). Refusals: API_ERRORS.notFound, and
   * API_ERRORS.noLocalPassword when the backend holds no password it can check.
   */
  verifyPassword(userId: string, password: string, beforeCheck: () => Promise<void>): Promise<PasswordCheck>;

  /**
   * Replaces the password when `oldPassword` is the current one: `{ matches: false }` when it is not (nothing
   * changed); otherwise the change, which `commit` stores inside the caller's write transaction (embedded: the
   * new hash replaces the one just verified, compare-and-set, else API_ERRORS.concurrentChange; a backend that
   * already made the change, Okta, has nothing left to store). Refusals: API_ERRORS.passwordPolicy (with the
   * backend's own policy text, which the page shows in its dialog), API_ERRORS.federatedUser,
   * API_ERRORS.notFound, API_ERRORS.noLocalPassword.
   */
  changePassword(
    userId: string,
    oldPassword: string,
    newPassword: string,
    beforeCheck: () => Promise<void>,
  ): Promise<PasswordChange>;

  // ---- 2-step factors ---------------------------------------------------------------------------------------

  /** The account's factors that are set up or being set up (the others do not appear). */
  listFactors(userId: string): Promise<IdentityFactor[]>;

  /**
   * Whether the account has an active 2-step factor of a kind the portal does not manage (Okta: Okta Verify, SMS,
   * a security key…), which listFactors leaves out. It still counts as a factor: the portal cannot check its
   * codes, so a fresh sign-in is the proof a password change needs then. Absent: the backend has no such factors.
   */
  hasUnmanagedActiveFactor?(userId: string): Promise<boolean>;

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

/** What a password check found; `verifyMs` is the hash check's time where the backend hashes (Server-Timing). */
export interface PasswordCheck {
  matches: boolean;
  verifyMs?: number | undefined;
}

/** A password change: refused (wrong current password), or made and committed with the caller's writes. */
export type PasswordChange =
  | { matches: false; verifyMs?: number | undefined }
  | {
      matches: true;
      verifyMs?: number | undefined;
      hashMs?: number | undefined;
      commit(tx: Storage): Promise<void>;
    };

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

/** What the page needs to add the account to an authenticator app. */
export interface AuthenticatorEnrolment {
  /** The shared secret, base32 (typed in by hand). */
  secret: string;
  /** The otpauth:// URI (Key Uri Format) the page draws as a QR code. */
  qrLink: string;
}
