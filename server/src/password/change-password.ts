import { performance } from 'node:perf_hooks';
import {
  failedPasswordRules,
  PASSWORD_CHANGE_ERRORS,
  PASSWORD_RULE_SERVER_ERRORS,
  type PasswordChangeRequest,
} from 'shared-auth/contract';
import type { Db } from '../db/connection.js';
import { hashPassword, passwordMatches, type Directory, type User } from '../directory/directory.js';
import { HttpError } from '../http/errors.js';
import type { SqliteOidcStore } from '../oidc/adapter.js';
import type { PasswordChangeThrottle } from './throttle.js';

export interface PasswordChangeDeps {
  db: Db;
  directory: Directory;
  throttle: PasswordChangeThrottle;
  /** The embedded provider's store; null in Okta mode (sessions live at Okta). */
  oidcStore: SqliteOidcStore | null;
}

export interface PasswordChangeOutcome {
  /** Time spent in argon2 (ms): verifying the current password and hashing the new one. */
  verifyMs: number;
  hashMs: number;
  revoked: { sessions: number; grants: number; tokens: number; interactions: number } | null;
}

/** What a refusal measured so far, for the Server-Timing header of a failed attempt. */
export class PasswordChangeRefusal extends HttpError {
  constructor(
    statusCode: number,
    message: string,
    readonly verifyMs: number | undefined,
    headers: Record<string, string> = {},
  ) {
    super(statusCode, message, headers);
  }
}

/**
 * Changes the caller's password: throttle, verify the current password against the stored argon2id hash, the
 * shared policy on the new one, then one transaction that stores the new hash, clears the throttle and ends
 * the account's other provider sessions (all but `keepSessionUid`, the session making the change).
 * Refusals are HttpErrors with the texts of the contract; anything else is unexpected.
 */
export async function changePassword(
  { db, directory, throttle, oidcStore }: PasswordChangeDeps,
  user: User,
  keepSessionUid: string | undefined,
  { OldPassword, NewPassword }: PasswordChangeRequest,
): Promise<PasswordChangeOutcome> {
  if (user.isFederated) throw new PasswordChangeRefusal(403, PASSWORD_CHANGE_ERRORS.federated, undefined);

  const waitMs = throttle.retryAfterMs(user.id);
  if (waitMs > 0) {
    const seconds = Math.ceil(waitMs / 1000);
    throw new PasswordChangeRefusal(429, PASSWORD_CHANGE_ERRORS.throttled(seconds), undefined, {
      'Retry-After': String(seconds),
    });
  }

  const currentHash = directory.passwordHashOf(user.id);
  if (currentHash === undefined)
    throw new PasswordChangeRefusal(404, 'The account no longer exists', undefined);
  if (currentHash === null)
    throw new PasswordChangeRefusal(409, PASSWORD_CHANGE_ERRORS.noLocalPassword, undefined);

  const verifyStart = performance.now();
  const matches = await passwordMatches(currentHash, OldPassword);
  const verifyMs = performance.now() - verifyStart;
  if (!matches) {
    throttle.recordFailure(user.id);
    throw new PasswordChangeRefusal(400, PASSWORD_CHANGE_ERRORS.wrongCurrentPassword, verifyMs);
  }

  const failed = failedPasswordRules({
    password: NewPassword,
    email: user.email,
    currentPassword: OldPassword,
  });
  if (failed.length > 0) {
    throw new PasswordChangeRefusal(
      400,
      failed.map((id) => PASSWORD_RULE_SERVER_ERRORS[id]).join(' '),
      verifyMs,
    );
  }

  const hashStart = performance.now();
  const newHash = await hashPassword(NewPassword);
  const hashMs = performance.now() - hashStart;

  const revoked = db
    .transaction(() => {
      if (!directory.replacePasswordHash(user.id, currentHash, newHash)) {
        // Another change of this user's password committed while this one was hashing.
        throw new PasswordChangeRefusal(
          409,
          'The password was changed by another request meanwhile. Use the new current password and try again.',
          verifyMs,
        );
      }
      throttle.clear(user.id);
      return oidcStore ? oidcStore.revokeAccountExcept(user.id, keepSessionUid) : null;
    })
    .immediate();

  return { verifyMs, hashMs, revoked };
}
