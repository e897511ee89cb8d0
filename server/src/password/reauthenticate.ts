import { API_ERRORS, REAUTHENTICATION_WRONG_PASSWORD_ERROR } from 'shared-auth/contract';
import type { Actor } from '../factors/actor.js';
import { refusal } from '../http/errors.js';
import { verifyCurrentPassword, type PasswordChangeDeps } from './change-password.js';

/**
 * "Confirm it's you": the password again, so a session that signed in more than 5 minutes ago may turn on the
 * account's first 2-step factor. Same throttle as the password change (a wrong password here is a wrong password
 * there). Accounts that already have a factor prove themselves with it (step-up) instead. A backend that cannot
 * check a password (Okta) refuses with no_local_password: signing in again is the fresh proof there.
 */
export async function reauthenticate(
  deps: Pick<PasswordChangeDeps, 'identity' | 'throttle' | 'notifier' | 'now' | 'stepUp'>,
  actor: Actor,
  password: string,
): Promise<{ expiresAt: number; verifyMs: number | undefined }> {
  const { user } = actor;
  if (await deps.stepUp.hasActiveFactor(user.id)) {
    throw refusal(
      API_ERRORS.hasActiveFactor,
      'This account has 2-step verification: verify with one of its factors instead.',
    );
  }
  const { verifyMs } = await verifyCurrentPassword(
    deps,
    actor,
    password,
    REAUTHENTICATION_WRONG_PASSWORD_ERROR,
  );
  await deps.throttle.clear(user.id);
  return { expiresAt: await deps.stepUp.grantReauthentication(actor), verifyMs };
}
