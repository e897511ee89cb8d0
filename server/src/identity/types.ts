/**
 * The identity backend: where the account's profile, password and 2-step factors live, in three parts
 * (accounts.ts, passwords.ts, factors.ts) that one backend object implements. Two do, selected by
 * IDENTITY_BACKEND: `embedded` (the portal's own directory and factor tables) and `okta` (Okta's Management API).
 * It holds the account data only: what the caller may do (step-up grants, the portal's password policy,
 * throttles, the last-factor rule, ending the other sessions, notices) stays with the services that call it
 * (factors/step-up.ts, factors/lifecycle.ts, the password change), so every route answers the same whichever
 * backend holds the account.
 *
 * Refusals are HttpErrors with the contract's codes and texts (API_ERRORS); anything unforeseen is a 5xx.
 */
import type { IdentityBackendKind } from '../config/env.js';
import type { IdentityAccounts } from './accounts.js';
import type { IdentityFactors } from './factors.js';
import type { IdentityPasswords } from './passwords.js';

export type { IdentityAccounts } from './accounts.js';
export type { Activation, IdentityFactor, IdentityFactors } from './factors.js';
export type { AuthenticatorEnrolment, FactorEnrolment } from './kinds/kind.js';
export type { IdentityPasswords, PasswordChange, PasswordCheck } from './passwords.js';

/** Which backend holds the accounts: the setting IDENTITY_BACKEND's values (config/env.ts). */
export type { IdentityBackendKind };

export interface IdentityBackend extends IdentityAccounts, IdentityPasswords, IdentityFactors {
  readonly kind: IdentityBackendKind;
}
