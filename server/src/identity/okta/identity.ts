/**
 * The identity backend in front of an Okta org: the profile, the password and the 2-step factors live in Okta.
 * One object over its three parts (accounts.ts, passwords.ts, factors.ts).
 *
 * Every call goes through Okta's **Management API** with the portal's own credentials (OktaOrg), not through the
 * MyAccount API with the user's token. Okta then does not re-verify the end user (only the old password, for a
 * password change), so the portal's guards come first in the services that call this: the caller's access token,
 * the step-up grant, the portal's password policy and its throttles. MyAccount (`../shared/okta-openapi/
 * idp-minimal.yaml`) cannot do the whole job: it needs the user's token to carry `okta.myAccount.*` scopes and
 * Okta's account management policy to allow each change; its profile call is a replace (PUT /idp/myaccount/profile);
 * its password change is Limited GA on Identity Engine orgs only; its /authenticators calls list, read and update
 * enrolments but cannot enrol Google Authenticator or check a code of an active one (the step-up).
 *
 * | operation             | Okta                                                                        |
 * |-----------------------|-----------------------------------------------------------------------------|
 * | findById, findCaller  | GET /api/v1/users/{id} (findCaller: through a 30 s per-instance cache)      |
 * | updateProfile         | POST /api/v1/users/{id} (partial: only the attributes sent change; never PUT) |
 * | verifyPassword        | none: the Management API cannot check a password (refused: no_local_password) |
 * | changePassword        | POST /api/v1/users/{userId}/credentials/change_password                     |
 * | listFactors           | GET /api/v1/users/{userId}/factors                                          |
 * | hasUnmanagedActiveFactor | GET /api/v1/users/{userId}/factors (any other ACTIVE factor)             |
 * | enrol (authenticator) | POST /api/v1/users/{userId}/factors (token:software:totp, GOOGLE)           |
 * | enrol (email)         | POST …/factors (email, OKTA), or POST …/factors/{factorId}/resend           |
 * | activate              | POST …/factors/{factorId}/lifecycle/activate {passCode}                     |
 * | sendVerificationEmail | POST …/factors/{factorId}/verify (no passCode: Okta sends a code)           |
 * | verify                | POST …/factors/{factorId}/verify {passCode}                                 |
 * | setEnabled (off)      | DELETE …/factors/{factorId}: Okta has no "off" for one factor               |
 * | remove                | DELETE …/factors/{factorId}                                                 |
 * | revokeRefreshTokens   | DELETE /api/v1/users/{userId}/clients/{clientId}/tokens (each client)       |
 * | endAllSessions        | DELETE /api/v1/users/{userId}/sessions?oauthTokens=true                     |
 * | systemLog.read        | GET /api/v1/logs (the user's events; scope okta.logs.read), system-log.ts   |
 *
 * The passkeys (Okta's `webauthn` factors) are `webauthn` (webauthn.ts), which the passkeys domain calls.
 */

import type { FactorName } from 'shared-auth/contract';
import type { ProfileChanges, User } from '../../storage/users.js';
import type { IdentityBackend } from '../types.js';
import { OktaAccounts, type OktaIdentityOptions } from './accounts.js';
import type { OktaLog, OktaOrg } from './client.js';
import { OktaFactors } from './factors.js';
import { OktaPasswords } from './passwords.js';
import { OktaSystemLog } from './system-log.js';
import { OktaWebAuthnFactors } from './webauthn.js';

export { passwordChangeRefusal } from './answers.js';
export type { OktaIdentityOptions } from './accounts.js';

export class OktaIdentity implements IdentityBackend {
  readonly kind = 'okta' as const;
  // The Management API has no "off" for one factor (setEnabled removes it), and cannot check a password.
  readonly factorTurnOff = 'removes' as const;
  readonly canCheckPasswords = false;
  private readonly accounts: OktaAccounts;
  private readonly passwords: OktaPasswords;
  private readonly factors: OktaFactors;
  /** The org's passkeys (webauthn factors): the passkeys domain's Okta backend calls them (passkeys/okta-backend.ts). */
  readonly webauthn: OktaWebAuthnFactors;
  /** The org's System Log, the account's activity in Okta mode (the activity plugin reads it). */
  readonly systemLog: OktaSystemLog;

  /**
   * `readsSystemLog`: whether the portal's credentials ask for the System Log (an API token, or a service app with
   * `okta.logs.read` in OKTA_SCOPES); default true. `log`: where the System Log's refusal is reported.
   */
  constructor(org: OktaOrg, options: OktaIdentityOptions & { readsSystemLog?: boolean; log?: OktaLog } = {}) {
    this.accounts = new OktaAccounts(org, options);
    this.passwords = new OktaPasswords(org);
    this.factors = new OktaFactors(org);
    this.webauthn = new OktaWebAuthnFactors(org);
    this.systemLog = new OktaSystemLog(org, options.readsSystemLog ?? true, options.log);
  }

  // The three parts, one object (the routes and services each use theirs).
  findById = (userId: string) => this.accounts.findById(userId);
  findCaller = (userId: string) => this.accounts.findCaller(userId);
  updateProfile = (userId: string, changes: ProfileChanges) => this.accounts.updateProfile(userId, changes);
  revokeRefreshTokens = (userId: string, clientIds: readonly string[]) =>
    this.accounts.revokeRefreshTokens(userId, clientIds);
  /** The Devices list's "sign out everywhere" (OktaAccounts.endSessions). */
  endSessions = (userId: string) => this.accounts.endSessions(userId);
  endAllSessions = (userId: string) => this.accounts.endSessions(userId);

  verifyPassword: IdentityBackend['verifyPassword'] = (...args) => this.passwords.verifyPassword(...args);
  changePassword: IdentityBackend['changePassword'] = (...args) => this.passwords.changePassword(...args);

  listFactors = (userId: string) => this.factors.listFactors(userId);
  hasUnmanagedActiveFactor = (userId: string) => this.factors.hasUnmanagedActiveFactor(userId);
  countPasskeys = async (userId: string) =>
    (await this.webauthn.list(userId)).filter((factor) => factor.status === 'ACTIVE').length;
  enrol = (user: User, type: FactorName) => this.factors.enrol(user, type);
  enrollAuthenticator = (user: User) => this.factors.enrollAuthenticator(user);
  enrollEmail = (user: User) => this.factors.enrollEmail(user);
  activate = (userId: string, type: FactorName, code: string) => this.factors.activate(userId, type, code);
  sendVerificationEmail = (user: User) => this.factors.sendVerificationEmail(user);
  verify = (userId: string, type: FactorName, code: string) => this.factors.verify(userId, type, code);
  setEnabled = (userId: string, type: FactorName, enabled: boolean) =>
    this.factors.setEnabled(userId, type, enabled);
  remove = (userId: string, type: FactorName) => this.factors.remove(userId, type);
}
