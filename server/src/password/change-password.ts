import type { ActivityLog } from '../activity/log.js';
import { recordActivityOf } from '../factors/activity.js';
import {
  API_ERRORS,
  failedPasswordRules,
  PASSWORD_CHANGE_ERRORS,
  PASSWORD_RULE_SERVER_ERRORS,
  type ApiErrorAnswer,
  type PasswordChangeRequest,
} from 'shared-auth/contract';
import type { Actor } from '../factors/actor.js';
import type { StepUpService } from '../factors/step-up.js';
import { HttpError } from '../http/errors.js';
import type { IdentityPasswords, PasswordCheck } from '../identity/passwords.js';
import type { RevokedSessions } from '../storage/provider.js';
import type { AccountSessions } from '../auth/sessions.js';
import type { Notifier } from '../notifications/types.js';
import type { Storage } from '../storage/index.js';
import { PASSWORD_CHANGE_LIMIT } from '../throttles/limits.js';
import type { ThrottleEvents } from '../storage/throttle-events.js';
import { retryAfterSeconds, Throttle, tooManyRequests, type Reservation } from '../throttles/throttle.js';

export interface PasswordChangeDeps {
  /** Where the password lives and is checked (embedded: argon2id in the directory; Okta). */
  identity: IdentityPasswords;
  storage: Storage;
  /** Wrong passwords per user (PASSWORD_CHANGE_LIMIT), shared by the password change and reauthenticate. */
  throttle: Throttle;
  /** The step-up a change needs, and the grants it ends. */
  stepUp: StepUpService;
  sessions: AccountSessions;
  notifier: Notifier;
  /** The account's activity: the change's event, in its transaction. */
  activity: ActivityLog;
  now: () => number;
}

export interface PasswordChangeOutcome {
  /** Time spent hashing (ms), where the backend hashes (embedded: argon2): verifying the current password and hashing the new one. */
  verifyMs: number | undefined;
  hashMs: number | undefined;
  revoked: RevokedSessions;
}

/** The password throttle over its stored events: PASSWORD_CHANGE_LIMIT, per user. */
export function passwordThrottle(events: ThrottleEvents, now: () => number): Throttle {
  return new Throttle(events, PASSWORD_CHANGE_LIMIT, now);
}

/** What a refusal measured so far, for the Server-Timing header of a failed attempt. */
export class PasswordChangeRefusal extends HttpError {
  constructor(
    answer: { status: number; code: ApiErrorAnswer['code'] },
    message: string,
    readonly verifyMs: number | undefined,
    headers: Record<string, string> = {},
  ) {
    super(answer.status, message, headers, answer.code);
  }
}

/** The backend's refusals of a password check or change, answered as password refusals (logged, timed). */
const BACKEND_REFUSALS = new Set<string>([
  API_ERRORS.notFound.code,
  API_ERRORS.noLocalPassword.code,
  API_ERRORS.passwordPolicy.code,
  API_ERRORS.federatedUser.code,
  API_ERRORS.concurrentChange.code,
]);

function asPasswordRefusal(error: unknown, verifyMs: number | undefined): unknown {
  if (
    !(error instanceof HttpError) ||
    error instanceof PasswordChangeRefusal ||
    !BACKEND_REFUSALS.has(error.code)
  ) {
    return error;
  }
  return new PasswordChangeRefusal(
    { status: error.statusCode, code: error.code },
    error.message,
    verifyMs,
    error.headers,
  );
}

/** The attempt counted before the password is checked; an attempt that cannot be recorded answers 503 first. */
function reserveAttempt(deps: Pick<PasswordChangeDeps, 'throttle'>, userId: string): Promise<Reservation> {
  return deps.throttle.reserveOrThrow(userId, (waitMs) =>
    tooManyRequests(PASSWORD_CHANGE_ERRORS.throttled(retryAfterSeconds(waitMs)), waitMs),
  );
}

/**
 * Runs one check of a current password under the password throttle: `check` calls the backend, which calls
 * `beforeCheck` right before it checks; the attempt is counted there. A wrong password stays counted (and, when
 * it reaches the limit, the account holder is told) and answers 400 `wrongMessage`; 429 at the limit.
 */
async function throttledCheck<C extends PasswordCheck>(
  deps: Pick<PasswordChangeDeps, 'throttle' | 'notifier' | 'now'>,
  actor: Actor,
  wrongMessage: string,
  check: (beforeCheck: () => Promise<void>) => Promise<C>,
): Promise<C> {
  const { user } = actor;
  let reservation: Reservation | undefined;
  let result: C;
  try {
    result = await check(async () => {
      reservation = await reserveAttempt(deps, user.id);
    });
  } catch (error) {
    throw asPasswordRefusal(error, undefined);
  }
  // A backend that checked without counting would open the throttle: a programming error, never an answer.
  if (!reservation) throw new Error('the identity backend checked a password without counting the attempt');
  if (!result.matches) {
    if (deps.throttle.locks(reservation)) {
      const until = await deps.throttle.lockedUntil(user.id);
      const event = { type: 'account-locked', reason: 'password', until } as const;
      const now = deps.now();
      if (!(await deps.notifier.queuedSince(user.id, event, now - PASSWORD_CHANGE_LIMIT.windowMs))) {
        await deps.notifier.queue(user, event, { userAgent: actor.userAgent, at: now });
      }
    }
    throw new PasswordChangeRefusal(API_ERRORS.wrongPassword, wrongMessage, result.verifyMs);
  }
  return result;
}

/**
 * Checks the account's current password under the password throttle (reauthenticate): the attempt is counted
 * before the backend checks it and taken back by the caller when it is right. Returns the hash check's time.
 */
export async function verifyCurrentPassword(
  deps: Pick<PasswordChangeDeps, 'identity' | 'throttle' | 'notifier' | 'now'>,
  actor: Actor,
  password: string,
  wrongMessage: string,
): Promise<{ verifyMs: number | undefined }> {
  const { verifyMs } = await throttledCheck(deps, actor, wrongMessage, (beforeCheck) =>
    deps.identity.verifyPassword(actor.user.id, password, beforeCheck),
  );
  return { verifyMs };
}

/**
 * Changes the caller's password, in this order: federated users are refused; a user with an active 2-step
 * factor needs this session's step-up grant (so a password alone, e.g. a phishing proxy's, cannot change it);
 * the new password is checked against the shared policy (before the current one, so a refusal never depends on
 * whether the current password was guessed right); the attempt is counted (the throttle) and the backend checks
 * the current password and makes the change (its own policy may refuse it: the page shows that text); then one
 * transaction stores the change where the backend takes part in it, clears the throttle, ends every other
 * session of the account and every grant chain and refresh token of it, the caller's included (embedded: the
 * caller keeps its provider session and renews with its cookie, a copied refresh token dies), and queues the
 * notice; after it commits, Okta mode revokes the account's refresh tokens at the org. Refusals are HttpErrors
 * with the texts of the contract (or the backend's policy text); anything else is unexpected.
 */
export async function changePassword(
  deps: PasswordChangeDeps,
  actor: Actor,
  { OldPassword, NewPassword }: PasswordChangeRequest,
): Promise<PasswordChangeOutcome> {
  const { user } = actor;
  if (user.isFederated)
    throw new PasswordChangeRefusal(API_ERRORS.federatedUser, PASSWORD_CHANGE_ERRORS.federated, undefined);
  // Also for a holder of factors only the org manages (Okta mode): a fresh sign-in then.
  await deps.stepUp.requirePasswordChangeStepUp(actor);

  const failed = failedPasswordRules({
    password: NewPassword,
    email: user.email,
    currentPassword: OldPassword,
  });
  if (failed.length > 0) {
    const message = failed.map((id) => PASSWORD_RULE_SERVER_ERRORS[id]).join(' ');
    throw new PasswordChangeRefusal(API_ERRORS.passwordPolicy, message, undefined);
  }

  const change = await throttledCheck(
    deps,
    actor,
    PASSWORD_CHANGE_ERRORS.wrongCurrentPassword,
    (beforeCheck) => deps.identity.changePassword(user.id, OldPassword, NewPassword, beforeCheck),
  );
  if (!change.matches) throw new Error('a wrong password was not refused');

  const revoked = await deps.storage.transaction(async (tx) => {
    try {
      await change.commit(tx);
    } catch (error) {
      throw asPasswordRefusal(error, change.verifyMs);
    }
    await tx.throttles.passwordChange.clear(user.id);
    const ended = await deps.sessions.endOtherSessions(user.id, actor.sessionUid, tx, actor.tokenId);
    const event = { type: 'password-changed' } as const;
    await deps.notifier.queue(user, event, { userAgent: actor.userAgent, at: deps.now() }, tx.outbox);
    await recordActivityOf(deps.activity, tx, user.id, event, actor);
    // Last: on PostgreSQL the notice and the event above ride in its statement (db/sql.ts writeLater).
    await deps.stepUp.endOtherStepUpGrants(actor, tx);
    return ended;
  });
  // Outside the transaction, once committed: a failure there answers an error but loses none of the above.
  await deps.sessions.endOtherSessionsAfterCommit(user.id);

  return { verifyMs: change.verifyMs, hashMs: change.hashMs, revoked };
}
