/**
 * The passwords part of an identity backend: checking the current password and changing it. `beforeCheck` runs
 * right before the password is checked: the caller counts the attempt there (its throttle), so an attempt that
 * cannot be counted is refused before anything was checked, and refusals that need no check (an unknown account,
 * no password here) are not counted.
 */
import type { Storage } from '../storage/index.js';

export interface IdentityPasswords {
  /**
   * Whether `verifyPassword` can check the password. When it cannot (Okta), "Confirm it's you" is proven by a new
   * sign-in only, and the 403 reauthentication_required says so (proof: 'sign-in').
   */
  readonly canCheckPasswords: boolean;

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
