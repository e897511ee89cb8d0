/**
 * One recovery code's use, for a flow outside the signed-in API (the password reset, issue 20):
 * `useRecoveryCode(userId, typed)` answers 'used' (the code was an unused one of the holder's set: now used up, and
 * the holder told) or 'wrong' (counted by the wrong-code throttle like a wrong factor code, unless the caller counts
 * it itself: `counted: false`). It throws the HttpErrors a route answers as they are: 429 with Retry-After when the
 * throttle refuses (nothing was checked), 409 recoveryCodesUnavailable in Okta mode, and a storage error (503) when
 * the attempt cannot be recorded.
 */
import type { IdentityAccounts } from '../identity/accounts.js';
import type { RecoveryCodeUse } from '../notifications/types.js';
import type { RecoveryCodes } from './recovery-codes.js';

export interface UseRecoveryCodeOptions {
  /** What the code is used for, as the holder's notice says (default: a password reset). */
  use?: RecoveryCodeUse;
  /** The request's User-Agent, for the notice. */
  userAgent?: string | undefined;
  /** The request's address, for the account's activity. */
  ip?: string | undefined;
  /**
   * false when the caller counts the attempt under the wrong-code throttle itself (password/reset.ts reserves it
   * before and clears it after: counted here too, each wrong code would count twice). Default true.
   */
  counted?: boolean;
}

export type UseRecoveryCode = (
  userId: string,
  typed: string,
  options?: UseRecoveryCodeOptions,
) => Promise<'used' | 'wrong'>;

/** `useRecoveryCode` over the account's codes; an account the identity backend does not know has none. */
export function recoveryCodeUse(
  codes: RecoveryCodes,
  accounts: Pick<IdentityAccounts, 'findById'>,
): UseRecoveryCode {
  return async (userId, typed, { use = 'password-reset', userAgent, ip, counted = true } = {}) => {
    const user = await accounts.findById(userId);
    if (!user) return 'wrong';
    return codes.use(user, typed, { use, userAgent, ip, counted });
  };
}
