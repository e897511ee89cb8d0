import { performance } from 'node:perf_hooks';
import {
  API_ERRORS,
  failedPasswordRules,
  PASSWORD_CHANGE_ERRORS,
  PASSWORD_RULE_SERVER_ERRORS,
  type ApiErrorAnswer,
  type PasswordChangeRequest,
} from 'shared-auth/contract';
import { hashPassword, passwordMatches, type Directory } from '../directory/directory.js';
import type { Actor, FactorService } from '../factors/service.js';
import { HttpError } from '../http/errors.js';
import type { RevokedSessions } from '../oidc/adapter.js';
import type { AccountSessions } from '../auth/sessions.js';
import type { Notifier } from '../notifications/types.js';
import type { Storage } from '../storage/index.js';
import { PASSWORD_CHANGE_LIMIT } from '../throttles/limits.js';
import { retryAfterSeconds, Throttle, tooManyRequests, type ThrottleEvents } from '../throttles/throttle.js';

export interface PasswordChangeDeps {
  storage: Storage;
  directory: Directory;
  /** Wrong passwords per user (PASSWORD_CHANGE_LIMIT), shared by the password change and reauthenticate. */
  throttle: Throttle;
  factors: FactorService;
  sessions: AccountSessions;
  notifier: Notifier;
  now: () => number;
}

export interface PasswordChangeOutcome {
  /** Time spent in argon2 (ms): verifying the current password and hashing the new one. */
  verifyMs: number;
  hashMs: number;
  revoked: RevokedSessions;
}

/** The password throttle over its stored events: PASSWORD_CHANGE_LIMIT, per user. */
export function passwordThrottle(events: ThrottleEvents, now: () => number): Throttle {
  return new Throttle(events, PASSWORD_CHANGE_LIMIT, now);
}

/** What a refusal measured so far, for the Server-Timing header of a failed attempt. */
export class PasswordChangeRefusal extends HttpError {
  constructor(
    answer: ApiErrorAnswer,
    message: string,
    readonly verifyMs: number | undefined,
    headers: Record<string, string> = {},
  ) {
    super(answer.status, message, headers, answer.code);
  }
}

/**
 * Checks the account's current password under the password throttle: the attempt is counted before argon2 runs
 * and taken back when the password is right. A wrong one stays counted (and, when it reaches the limit, the
 * account holder is told). Returns the argon2 time; throws 400 `wrongMessage` when wrong, 429 at the limit.
 */
export async function verifyCurrentPassword(
  deps: Pick<PasswordChangeDeps, 'directory' | 'throttle' | 'notifier' | 'now'>,
  actor: Actor,
  password: string,
  wrongMessage: string,
): Promise<{ verifyMs: number; hash: string }> {
  const { user } = actor;
  const hash = await deps.directory.passwordHashOf(user.id);
  if (hash === undefined)
    throw new PasswordChangeRefusal(API_ERRORS.notFound, 'The account no longer exists', undefined);
  if (hash === null)
    throw new PasswordChangeRefusal(
      API_ERRORS.noLocalPassword,
      PASSWORD_CHANGE_ERRORS.noLocalPassword,
      undefined,
    );

  // Counted before argon2 runs; an attempt that cannot be recorded is refused with the storage error (503).
  const reservation = await deps.throttle.reserveOrThrow(user.id, (waitMs) =>
    tooManyRequests(PASSWORD_CHANGE_ERRORS.throttled(retryAfterSeconds(waitMs)), waitMs),
  );
  const started = performance.now();
  const matches = await passwordMatches(hash, password);
  const verifyMs = performance.now() - started;
  if (!matches) {
    if (deps.throttle.locks(reservation)) {
      const until = await deps.throttle.lockedUntil(user.id);
      const event = { type: 'account-locked', reason: 'password', until } as const;
      const now = deps.now();
      if (!(await deps.notifier.queuedSince(user.id, event, now - PASSWORD_CHANGE_LIMIT.windowMs))) {
        await deps.notifier.queue(user, event, { userAgent: actor.userAgent, at: now });
      }
    }
    throw new PasswordChangeRefusal(API_ERRORS.wrongPassword, wrongMessage, verifyMs);
  }
  return { verifyMs, hash };
}

/**
 * Changes the caller's password, in this order: federated users are refused; a user with an active 2-step
 * factor needs this session's step-up grant (so a password alone, e.g. a phishing proxy's, cannot change it);
 * the new password is checked against the shared policy (before the current one, so a refusal never depends on
 * whether the current password was guessed right); the current password is verified under the throttle; then
 * one transaction stores the new hash, clears the throttle, ends every other session of the account and queues
 * the notice. Refusals are HttpErrors with the texts of the contract; anything else is unexpected.
 */
export async function changePassword(
  deps: PasswordChangeDeps,
  actor: Actor,
  { OldPassword, NewPassword }: PasswordChangeRequest,
): Promise<PasswordChangeOutcome> {
  const { user } = actor;
  if (user.isFederated)
    throw new PasswordChangeRefusal(API_ERRORS.federatedUser, PASSWORD_CHANGE_ERRORS.federated, undefined);
  await deps.factors.requireStepUp(user.id, actor.grantKey);

  const failed = failedPasswordRules({
    password: NewPassword,
    email: user.email,
    currentPassword: OldPassword,
  });
  if (failed.length > 0) {
    const message = failed.map((id) => PASSWORD_RULE_SERVER_ERRORS[id]).join(' ');
    throw new PasswordChangeRefusal(API_ERRORS.passwordPolicy, message, undefined);
  }

  const { verifyMs, hash: currentHash } = await verifyCurrentPassword(
    deps,
    actor,
    OldPassword,
    PASSWORD_CHANGE_ERRORS.wrongCurrentPassword,
  );

  const hashStart = performance.now();
  const newHash = await hashPassword(NewPassword);
  const hashMs = performance.now() - hashStart;

  const revoked = await deps.storage.transaction(async (tx) => {
    if (
      !(await tx.users.replacePasswordHash(user.id, currentHash, newHash, new Date(deps.now()).toISOString()))
    ) {
      // Another change of this user's password committed while this one was hashing.
      throw new PasswordChangeRefusal(
        API_ERRORS.concurrentChange,
        'The password was changed by another request meanwhile. Use the new current password and try again.',
        verifyMs,
      );
    }
    await tx.throttles.passwordChange.clear(user.id);
    const ended = await deps.sessions.endOtherSessions(user.id, actor.sessionUid, tx);
    await deps.factors.endOtherStepUpGrants(user.id, actor.grantKey, tx);
    await deps.notifier.queue(
      user,
      { type: 'password-changed' },
      { userAgent: actor.userAgent, at: deps.now() },
      tx.outbox,
    );
    return ended;
  });

  return { verifyMs, hashMs, revoked };
}
