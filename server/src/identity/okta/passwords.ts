/** The Okta backend's passwords: Okta checks and changes them (Management API's change_password). */
import { API_ERRORS } from 'shared-auth/contract';
import { refusal } from '../../http/errors.js';
import type { IdentityPasswords, PasswordChange, PasswordCheck } from '../passwords.js';
import { passwordChangeRefusal, requireId } from './answers.js';
import type { OktaOrg } from './client.js';

export class OktaPasswords implements IdentityPasswords {
  // The Management API cannot check a password without changing it.
  readonly canCheckPasswords = false;

  constructor(private readonly org: OktaOrg) {}

  /**
   * The Management API has no call that checks a password without changing it (Okta's Authentication API would,
   * but acts as a sign-in, outside the Management API and its specification): "Confirm it's you" is refused, and
   * signing in again (a fresh `auth_time`) is the proof a first factor needs in Okta mode.
   */
  async verifyPassword(
    _userId: string,
    _password: string,
    _beforeCheck: () => Promise<void>,
  ): Promise<PasswordCheck> {
    throw refusal(
      API_ERRORS.noLocalPassword,
      'Your password is kept by your organization and cannot be checked here. Sign in again, then turn on 2-step verification within 5 minutes.',
    );
  }

  /**
   * The Management API's change_password: Okta checks the old password and the org's password policy (history
   * included). It is the server acting with its own credentials, not the user under Okta's account management
   * policy (MyAccount's /idp/myaccount/password would need the user's token with okta.myAccount.password.manage):
   * the portal's step-up grant, its own password policy and its wrong-password throttle are the guard, checked
   * before this is called (`beforeCheck` counts the attempt). A wrong old password is `{ matches: false }`; the
   * other refusals are thrown (passwordChangeRefusal). Okta's sessions are left alone (no revokeSessions): Okta
   * cannot spare the caller's own, so ending them would sign the caller out too (see endSessions).
   */
  async changePassword(
    userId: string,
    oldPassword: string,
    newPassword: string,
    beforeCheck: () => Promise<void>,
  ): Promise<PasswordChange> {
    await beforeCheck();
    try {
      await this.org.call('changePassword', 'once', (c) =>
        c.userApi.changePassword({
          userId: requireId(userId),
          changePasswordRequest: { oldPassword: { value: oldPassword }, newPassword: { value: newPassword } },
        }),
      );
    } catch (error) {
      const refused = passwordChangeRefusal(error);
      if (refused?.code === API_ERRORS.wrongPassword.code) return { matches: false };
      throw refused ?? this.org.unexpected('changePassword', error);
    }
    // Made in Okta already: nothing left to store with the portal's own writes.
    return { matches: true, commit: async () => undefined };
  }
}
