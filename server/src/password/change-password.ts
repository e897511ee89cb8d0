import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import {
  failedPasswordRules,
  PASSWORD_CHANGE_ERRORS,
  PASSWORD_RULE_SERVER_ERRORS,
  type PasswordChangeRequest,
} from 'shared-auth/contract';
import type { Db } from '../db/connection.js';
import { hashPassword, passwordMatches, type Directory } from '../directory/directory.js';
import type { Actor, FactorService } from '../factors/service.js';
import { HttpError } from '../http/errors.js';
import type { RevokedSessions } from '../oidc/adapter.js';
import type { AccountSessions } from '../auth/sessions.js';
import type { Notifier } from '../notifications/types.js';
import { PASSWORD_CHANGE_WINDOW_MS, PasswordChangeThrottle } from './throttle.js';

export interface PasswordChangeDeps {
  db: Db;
  directory: Directory;
  throttle: PasswordChangeThrottle;
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

/**
 * The password rules' collaborators, built once per app: the password change and "Confirm it's you" share them,
 * and so share one throttle of wrong passwords.
 */
export function passwordDepsOf(app: FastifyInstance): PasswordChangeDeps {
  return {
    db: app.db,
    directory: app.directory,
    throttle: new PasswordChangeThrottle(app.db, { now: () => app.now() }),
    factors: app.factors,
    sessions: app.accountSessions,
    notifier: app.notifier,
    now: () => app.now(),
  };
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
  const hash = deps.directory.passwordHashOf(user.id);
  if (hash === undefined) throw new PasswordChangeRefusal(404, 'The account no longer exists', undefined);
  if (hash === null) throw new PasswordChangeRefusal(409, PASSWORD_CHANGE_ERRORS.noLocalPassword, undefined);

  const reservation = deps.throttle.reserve(user.id);
  const started = performance.now();
  const matches = await passwordMatches(hash, password);
  const verifyMs = performance.now() - started;
  if (!matches) {
    const event = { type: 'account-locked', reason: 'password', until: reservation.lockedUntil() } as const;
    const now = deps.now();
    if (
      reservation.locksIfWrong &&
      !deps.notifier.queuedSince(user.id, event, now - PASSWORD_CHANGE_WINDOW_MS)
    ) {
      deps.notifier.queue(user, event, { userAgent: actor.userAgent, at: now });
    }
    throw new PasswordChangeRefusal(400, wrongMessage, verifyMs);
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
  if (user.isFederated) throw new PasswordChangeRefusal(403, PASSWORD_CHANGE_ERRORS.federated, undefined);
  deps.factors.requireStepUp(user.id, actor.grantKey);

  const failed = failedPasswordRules({
    password: NewPassword,
    email: user.email,
    currentPassword: OldPassword,
  });
  if (failed.length > 0) {
    const message = failed.map((id) => PASSWORD_RULE_SERVER_ERRORS[id]).join(' ');
    throw new PasswordChangeRefusal(400, message, undefined);
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

  const revoked = deps.db
    .transaction(() => {
      if (!deps.directory.replacePasswordHash(user.id, currentHash, newHash)) {
        // Another change of this user's password committed while this one was hashing.
        throw new PasswordChangeRefusal(
          409,
          'The password was changed by another request meanwhile. Use the new current password and try again.',
          verifyMs,
        );
      }
      deps.throttle.clear(user.id);
      const ended = deps.sessions.endOtherSessions(user.id, actor.sessionUid);
      deps.factors.endOtherStepUpGrants(user.id, actor.grantKey);
      deps.notifier.queue(user, { type: 'password-changed' }, { userAgent: actor.userAgent, at: deps.now() });
      return ended;
    })
    .immediate();

  return { verifyMs, hashMs, revoked };
}
