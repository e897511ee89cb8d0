/**
 * "Forgot password" (issue 20), embedded backend: a link mailed to the account's address lets its holder choose a
 * new password. The rules:
 *
 * - No enumeration: every request is counted under the typed email (a keyed hash, whatever the email) and answered
 *   the same before anything depends on the email; the account, its link and its mail come after the answer.
 * - The link's token is 256 random bits, stored only as its SHA-256, works once, for 30 minutes, for one account and
 *   its current password (a fingerprint of the hash is stored with it: a changed password voids it), and a newer
 *   link voids the older ones. Posts with one link are counted; past MAX_LINK_POSTS it is voided.
 * - An account with an active second factor other than email, or a passkey that still works, proves it first
 *   (authenticator code, its passkey, or a recovery code), under the wrong-code throttle: the mailbox alone never
 *   resets such an account. An email code would prove nothing more than the link, so an email-only account resets
 *   with the link.
 * - The new password meets the shared policy (shared-auth's password-policy.ts). argon2 runs before the transaction;
 *   the transaction uses the link, swaps the hash (compare-and-set), ends every session, grant, refresh token and
 *   step-up grant of the account (as a password change ends the others: AccountSessions), lifts the sign-in lockout
 *   and queues the notice.
 */
import type { ActivityLog } from '../activity/log.js';
import { recordActivityOf } from '../factors/activity.js';
import { createHash, randomBytes, randomInt } from 'node:crypto';
import {
  API_ERRORS,
  CONFIRM_PASSWORD_MISMATCH_MESSAGE,
  failedPasswordRules,
  INVALID_CODE_ERROR,
  PASSWORD_RULE_SERVER_ERRORS,
} from 'shared-auth/contract';
import type { AccountSessions } from '../auth/sessions.js';
import type { Directory, User } from '../directory/directory.js';
import type { CodeAttempts } from '../factors/code-attempts.js';
import type { StepUpService } from '../factors/step-up.js';
import { HttpError } from '../http/errors.js';
import type { Notice } from '../notifications/texts.js';
import type { NotificationRecipient, Notifier } from '../notifications/types.js';
import type {
  PasswordResetFlow,
  ResetLinkStep,
  ResetRequestContext,
} from '../oidc/interactions/reset-flow.js';
import type { Storage } from '../storage/index.js';
import type { OutboxStore } from '../storage/outbox.js';
import type { PasswordResetRecord } from '../storage/password-resets.js';
import { PASSWORD_RESET_REQUEST_LIMIT } from '../throttles/limits.js';
import { Throttle } from '../throttles/throttle.js';
import { federatedResetMail, resetLinkMail } from './reset-mails.js';

/** How long a link works. */
export const RESET_LINK_TTL_MS = 30 * 60 * 1000;
/** The work after a request's answer starts at a random moment within this. */
export const AFTER_ANSWER_JITTER_MS = 1000;
/** Posts (codes, new passwords) one link takes before it is voided. */
export const MAX_LINK_POSTS = 10;
/** The link no longer works (the passkey options of its page). */
export const RESET_LINK_GONE = 'This link has expired or was already used. Ask for a new one.';
/** A passkey answer posted for an account that has no passkey to check, or no longer needs one. */
export const NO_PASSKEY_STEP = 'A passkey is not needed for this step.';
/** The passkey form posted without the browser's answer. */
export const PASSKEY_ANSWER_MISSING = 'Your passkey did not answer. Try again, or enter a code.';
/** The refusal of an empty new password. */
export const MISSING_NEW_PASSWORD = 'Enter a new password.';

/**
 * The recovery codes, as the reset uses them (wired by the lead once factors/recovery-codes.ts exists): one
 * unused code of the account is spent when `typed` is one. Wrong guesses are counted here, with the wrong-code
 * throttle, not by the implementation.
 */
export interface ResetRecoveryCodes {
  /** `origin`: the browser and address that used it, for the notice and the account's activity. */
  use(userId: string, typed: string, origin?: ResetRequestContext): Promise<'used' | 'wrong'>;
  /** The account's unused codes: the code step offers them only when there is one. */
  left(userId: string): Promise<number>;
}

/** The browser's answer to a passkey check (WebAuthn JSON, its outer shape checked by the page's route). */
export type ResetPasskeyAnswer = { id: string } & Record<string, unknown>;

/**
 * The account's passkeys, as the reset uses them (the passkeys domain, wired by the provider plugin): the
 * challenge is bound to the link (`linkKey`, its stored hash), single use, 5 minutes; the check counts under the
 * wrong-code throttle and records the passkey's use. Refusals are HttpErrors whose message the page shows.
 */
export interface ResetPasskeys {
  /** The account's passkeys that still work (a blocked one proves nothing). */
  usable(userId: string): Promise<number>;
  /** The options of navigator.credentials.get() for the account's passkeys. */
  options(user: User, linkKey: string): Promise<{ options: Record<string, unknown> }>;
  verify(
    answer: ResetPasskeyAnswer,
    linkKey: string,
    user: User,
    userAgent: string | undefined,
  ): Promise<void>;
}

/** The answer of the passkey options on a link's code step. */
export type ResetPasskeyOptions =
  | { kind: 'options'; options: Record<string, unknown> }
  | { kind: 'refused'; statusCode: number; error: string; retryAfterMs?: number | undefined };

/** The outbox, as the reset queues into it: the notifier's notices, and the link mail (sealed until sent). */
export type ResetMailer = Pick<Notifier, 'queue'> & {
  queueMessage(
    recipient: NotificationRecipient,
    message: Notice,
    within?: OutboxStore,
    options?: { secret?: boolean },
  ): Promise<void>;
};

export interface PasswordResetDeps {
  storage: Storage;
  directory: Directory;
  /** The account's active factors and the code check (with the wrong-code throttle). */
  stepUp: StepUpService;
  /** The wrong-code throttle, for recovery codes. */
  attempts: CodeAttempts;
  /** Ends every session of the account (the password change's, with no session kept). */
  sessions: AccountSessions;
  mail: ResetMailer;
  /** The throttle key of a typed email: a keyed hash of the normalised email. */
  requestKey: (email: string) => string;
  /** The sign-in throttle key of an email (the one a lockout of strangers' failures is under). */
  signInThrottleKey: (email: string) => string;
  /** The link mailed for a token: `{PUBLIC_URL}/…?token=…`. */
  linkFor: (token: string) => string;
  now: () => number;
  log: { warn(object: object, message: string): void; info(object: object, message: string): void };
  /** The account's activity: the reset's event, in its transaction. */
  activity: ActivityLog;
  recoveryCodes?: ResetRecoveryCodes | undefined;
  passkeys?: ResetPasskeys | undefined;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');

/** The stored form of a token: its SHA-256 (a 256-bit random token needs no slow hash). */
export const tokenHashOf = (token: string) => sha256(`reset-token:${token}`);

/** A fingerprint of the password hash a link was issued under (no password here: a fixed value). */
export const passwordFingerprintOf = (passwordHash: string | null) =>
  sha256(`reset-password:${passwordHash ?? ''}`);

/** A token as it comes from a form or an address: base64url of 32 bytes, nothing else is looked up. */
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

/** Ends every step-up grant of the account: no key is empty, so keeping the empty key keeps none. */
const KEEP_NO_GRANT = '';

export class PasswordReset implements PasswordResetFlow {
  private readonly requests: Throttle;
  private readonly pending = new Set<Promise<void>>();
  /** The work after answers that waits for its moment: its timer, and what starts it at once. */
  private readonly waiting = new Map<NodeJS.Timeout, () => void>();

  constructor(private readonly deps: PasswordResetDeps) {
    this.requests = new Throttle(
      deps.storage.throttles.passwordResetRequests,
      PASSWORD_RESET_REQUEST_LIMIT,
      deps.now,
    );
  }

  async admitRequest(
    email: string,
  ): Promise<{ kind: 'admitted' } | { kind: 'throttled'; retryAfterMs: number }> {
    const outcome = await this.requests.reserve(this.deps.requestKey(email));
    return outcome.kind === 'reserved'
      ? { kind: 'admitted' }
      : { kind: 'throttled', retryAfterMs: outcome.retryAfterMs };
  }

  sendLinkAfterAnswer(email: string): void {
    // After the answer was written, so its time never depends on the email; and at a random moment within
    // AFTER_ANSWER_JITTER_MS, so an account's work (its link's write, the mail) does not slow the very next
    // request either, which a prober could time instead (it gets 3 tries an hour per email).
    const run = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(timer);
        resolve();
      }, randomInt(AFTER_ANSWER_JITTER_MS));
      timer.unref();
      this.waiting.set(timer, resolve);
    })
      .then(() => this.sendLink(email))
      .catch((error: unknown) => this.deps.log.warn({ err: error }, 'password reset: link not queued'))
      .finally(() => this.pending.delete(run));
    this.pending.add(run);
  }

  /** Runs the work still waiting after the answers now, and resolves once it is done (tests, shutdown). */
  async idle(): Promise<void> {
    for (const [timer, start] of this.waiting) {
      clearTimeout(timer);
      this.waiting.delete(timer);
      start();
    }
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  private async sendLink(email: string): Promise<void> {
    const { directory, storage, mail, now } = this.deps;
    const user = await directory.findByEmail(email);
    if (!user) return;
    if (user.isFederated) {
      await mail.queueMessage(user, federatedResetMail());
      return;
    }
    const passwordHash = await directory.passwordHashOf(user.id);
    if (passwordHash === undefined) return;
    const token = randomBytes(32).toString('base64url');
    const at = now();
    await storage.transaction(async (tx) => {
      // Replaces the account's older links: only the newest works.
      await tx.passwordResets.issue({
        tokenHash: tokenHashOf(token),
        userId: user.id,
        passwordFingerprint: passwordFingerprintOf(passwordHash),
        createdAt: at,
        expiresAt: at + RESET_LINK_TTL_MS,
      });
      await mail.queueMessage(
        user,
        resetLinkMail(this.deps.linkFor(token), RESET_LINK_TTL_MS / 60_000),
        tx.outbox,
        // Sealed until sent, then wiped: the database keeps the token only as its hash.
        { secret: true },
      );
    });
    this.deps.log.info({ userId: user.id }, 'password reset link queued');
  }

  /** The link's record and account when it still works: unexpired, its account's password unchanged. */
  private async live(token: string): Promise<{ record: PasswordResetRecord; user: User } | undefined> {
    if (!TOKEN_FORMAT.test(token)) return undefined;
    const { storage, directory, now } = this.deps;
    const record = await storage.passwordResets.find(tokenHashOf(token), now());
    if (!record) return undefined;
    const [user, hash] = await Promise.all([
      directory.findById(record.userId),
      directory.passwordHashOf(record.userId),
    ]);
    if (!user || user.isFederated || hash === undefined) return undefined;
    if (passwordFingerprintOf(hash) !== record.passwordFingerprint) return undefined;
    return { record, user };
  }

  /** Counts a post with the link; past MAX_LINK_POSTS the link is voided. False when it no longer works. */
  private async countPost(record: PasswordResetRecord): Promise<boolean> {
    const { storage, now } = this.deps;
    const count = await storage.passwordResets.countAttempt(record.tokenHash, now());
    if (count === undefined) return false;
    if (count > MAX_LINK_POSTS) {
      await storage.passwordResets.delete(record.tokenHash);
      return false;
    }
    return true;
  }

  /**
   * The account's 2-step situation: whether a proof must come first (an active factor other than email, or a
   * passkey that works), and whether email is its only method.
   */
  private async secondFactor(user: User): Promise<{
    required: boolean;
    emailOnly: boolean;
    authenticator: boolean;
    passkeys: boolean;
    usablePasskeys: number;
  }> {
    const [active, passkeys] = await Promise.all([
      this.deps.stepUp.activeTypes(user.id),
      this.deps.passkeys ? this.deps.passkeys.usable(user.id) : Promise.resolve(0),
    ]);
    const others = active.filter((type) => type !== 'email');
    return {
      required: others.length > 0 || passkeys > 0,
      emailOnly: others.length === 0 && passkeys === 0 && active.includes('email'),
      authenticator: others.length > 0,
      passkeys: passkeys > 0,
      usablePasskeys: passkeys,
    };
  }

  private async codeStep(
    user: User,
    statusCode: number,
    extra: { error?: string; retryAfterMs?: number } = {},
  ): Promise<ResetLinkStep> {
    const [left, factor] = await Promise.all([
      this.deps.recoveryCodes?.left(user.id) ?? Promise.resolve(0),
      this.secondFactor(user),
    ]);
    // The holder's default leads when this page offers it (issue 22), as on the sign-in's 2-step page. Only the
    // passkey can: the code field leads anyway, and email is never asked here (the link proves the mailbox).
    const preferred = factor.passkeys
      ? await this.deps.stepUp.preferredMethod(user.id, { passkey: { count: factor.usablePasskeys } })
      : undefined;
    return {
      kind: 'code',
      statusCode,
      recoveryCodes: left > 0,
      authenticator: factor.authenticator,
      passkeys: factor.passkeys,
      ...(preferred === 'passkey' ? { lead: preferred } : {}),
      ...extra,
    };
  }

  async open(token: string): Promise<ResetLinkStep> {
    const live = await this.live(token);
    if (!live) return { kind: 'invalid' };
    const factor = await this.secondFactor(live.user);
    if (factor.required && !live.record.factorVerified) return this.codeStep(live.user, 200);
    return { kind: 'password', statusCode: 200, email: live.user.email, emailOnly2Step: factor.emailOnly };
  }

  /**
   * A post of the link's proof step, counted: `step` when nothing is left to prove (the link no longer works, or
   * its account needs no proof or gave it already), else what the proof needs and the page that follows it.
   */
  private async proofPost(token: string): Promise<
    | { step: ResetLinkStep }
    | {
        record: PasswordResetRecord;
        user: User;
        factor: Awaited<ReturnType<PasswordReset['secondFactor']>>;
        passwordStep: ResetLinkStep;
      }
  > {
    const live = await this.live(token);
    if (!live || !(await this.countPost(live.record))) return { step: { kind: 'invalid' } };
    const { record, user } = live;
    const factor = await this.secondFactor(user);
    const passwordStep: ResetLinkStep = {
      kind: 'password',
      statusCode: 200,
      email: user.email,
      emailOnly2Step: factor.emailOnly,
    };
    if (!factor.required || record.factorVerified) return { step: passwordStep };
    return { record, user, factor, passwordStep };
  }

  async verify(token: string, code: string, context: ResetRequestContext): Promise<ResetLinkStep> {
    const post = await this.proofPost(token);
    if ('step' in post) return post.step;
    const { record, user, passwordStep } = post;
    const typed = code.trim();
    if (typed === '') return this.codeStep(user, 400, { error: 'Enter the verification code.' });
    try {
      await this.checkCode(user, typed, context);
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      if (error.code === API_ERRORS.invalidCode.code) {
        return this.codeStep(user, 400, {
          error: 'That verification code is not correct. Check it and try again.',
        });
      }
      const retryAfter = Number(error.headers['Retry-After']);
      return this.codeStep(user, error.statusCode, {
        error: error.message,
        ...(Number.isFinite(retryAfter) ? { retryAfterMs: retryAfter * 1000 } : {}),
      });
    }
    await this.deps.storage.passwordResets.markFactorVerified(record.tokenHash);
    return passwordStep;
  }

  /** The passkey options of a link's code step: only while its account must still prove a second factor. */
  async passkeyOptions(token: string): Promise<ResetPasskeyOptions> {
    const { passkeys } = this.deps;
    const live = await this.live(token);
    if (!live || !passkeys) return { kind: 'refused', statusCode: 410, error: RESET_LINK_GONE };
    const { record, user } = live;
    const factor = await this.secondFactor(user);
    if (!factor.passkeys || record.factorVerified) {
      return { kind: 'refused', statusCode: 409, error: NO_PASSKEY_STEP };
    }
    try {
      const { options } = await passkeys.options(user, record.tokenHash);
      return { kind: 'options', options };
    } catch (error) {
      return refusedBy(error);
    }
  }

  /**
   * The link's second factor proved with a passkey: the answer verified against a challenge bound to this link
   * (under the wrong-code throttle, the use recorded), then the new password's page. A refusal shows the code
   * step again with its text.
   */
  async verifyPasskey(
    token: string,
    answer: ResetPasskeyAnswer | undefined,
    context: ResetRequestContext,
  ): Promise<ResetLinkStep> {
    const post = await this.proofPost(token);
    if ('step' in post) return post.step;
    const { record, user, factor, passwordStep } = post;
    const { passkeys } = this.deps;
    if (!passkeys || !factor.passkeys) return this.codeStep(user, 409, { error: NO_PASSKEY_STEP });
    if (!answer) return this.codeStep(user, 400, { error: PASSKEY_ANSWER_MISSING });
    try {
      await passkeys.verify(answer, record.tokenHash, user, context.userAgent);
    } catch (error) {
      const refused = refusedBy(error);
      return this.codeStep(user, refused.statusCode, {
        error: refused.error,
        ...(refused.retryAfterMs !== undefined ? { retryAfterMs: refused.retryAfterMs } : {}),
      });
    }
    await this.deps.storage.passwordResets.markFactorVerified(record.tokenHash);
    return passwordStep;
  }

  /**
   * An authenticator code, or (when wired) a recovery code: both under the wrong-code throttle, which a right one
   * clears. An authenticator code is 6 digits; anything else typed is tried as a recovery code.
   */
  private async checkCode(user: User, typed: string, context: ResetRequestContext): Promise<void> {
    const { stepUp, attempts, recoveryCodes } = this.deps;
    const { userAgent } = context;
    if (recoveryCodes === undefined || /^\d{6}$/.test(typed)) {
      await stepUp.verifyCode(user, 'googleAuth', typed, userAgent);
      return;
    }
    const attempt = await attempts.reserve(user.id);
    if ((await recoveryCodes.use(user.id, typed, context)) === 'used') {
      await attempts.accepted(user.id);
      return;
    }
    await attempts.wrong(user, userAgent, attempt);
    throw new HttpError(400, INVALID_CODE_ERROR);
  }

  async setPassword(
    token: string,
    { newPassword, confirmPassword }: { newPassword: string; confirmPassword: string },
    context: ResetRequestContext,
  ): Promise<ResetLinkStep> {
    const live = await this.live(token);
    if (!live || !(await this.countPost(live.record))) return { kind: 'invalid' };
    const { record, user } = live;
    const factor = await this.secondFactor(user);
    if (factor.required && !record.factorVerified) return this.codeStep(user, 403);
    const errors = refusalsOf(newPassword, confirmPassword, user.email);
    if (errors.length > 0) {
      return {
        kind: 'password',
        statusCode: 400,
        email: user.email,
        emailOnly2Step: factor.emailOnly,
        errors,
      };
    }

    const { storage, directory, sessions, mail, now } = this.deps;
    // argon2 before the transaction; the transaction only swaps hashes.
    const [currentHash, newHash] = await Promise.all([
      directory.passwordHashOf(user.id),
      directory.hash(newPassword),
    ]);
    if (currentHash === undefined) return { kind: 'invalid' };
    const at = now();
    const deviceKey = context.deviceThrottleKey?.(user.id);
    const changed = await storage.transaction(async (tx) => {
      // Used once: a second post (or a racing one) finds it gone; a password changed meanwhile voids it.
      if (!(await tx.passwordResets.consume(record.tokenHash, record.passwordFingerprint, at))) return false;
      const stamp = new Date(at).toISOString();
      if (currentHash === null) await tx.users.setPasswordHash(user.id, newHash, stamp);
      else if (!(await tx.users.replacePasswordHash(user.id, currentHash, newHash, stamp))) return false;
      await tx.passwordResets.deleteOf(user.id);
      // Passkeys blocked as copies kept 2-step on without proving anything: the mailbox's reset clears them.
      for (const passkey of await tx.passkeys.list(user.id)) {
        if (passkey.clonedAt !== null) await tx.passkeys.remove(user.id, passkey.id);
      }
      // Every session, grant, refresh token and sign-in in progress of the account: none is kept.
      await sessions.endOtherSessions(user.id, undefined, tx);
      await tx.grants.endAllCarrying(user.id, KEEP_NO_GRANT, undefined);
      // The lockout of strangers' failures under the email, this browser's own, and wrong current passwords.
      await tx.throttles.signIn.clear(this.deps.signInThrottleKey(user.email));
      if (deviceKey) await tx.throttles.signIn.clear(deviceKey);
      await tx.throttles.passwordChange.clear(user.id);
      const event = { type: 'password-reset', emailOnly2Step: factor.emailOnly } as const;
      await mail.queue(user, event, { userAgent: context.userAgent, at }, tx.outbox);
      await recordActivityOf(this.deps.activity, tx, user.id, event, context);
      return true;
    });
    if (!changed) return { kind: 'invalid' };
    await sessions.endOtherSessionsAfterCommit(user.id);
    this.deps.log.info({ userId: user.id }, 'password reset');
    return { kind: 'done' };
  }

  /** Housekeeping: expired links, request counts that no longer count. */
  async prune(): Promise<number> {
    return (await this.deps.storage.passwordResets.prune(this.deps.now())) + (await this.requests.prune());
  }
}

/** A passkey check's refusal (HttpError: its status, text and wait), as the link's pages show it. */
function refusedBy(error: unknown): Extract<ResetPasskeyOptions, { kind: 'refused' }> {
  if (!(error instanceof HttpError)) throw error;
  const retryAfter = Number(error.headers['Retry-After']);
  return {
    kind: 'refused',
    statusCode: error.statusCode,
    error: error.message,
    ...(Number.isFinite(retryAfter) ? { retryAfterMs: retryAfter * 1000 } : {}),
  };
}

/** The new password's refusals, one sentence each: the shared policy's (no current password here), then the confirmation. */
export function refusalsOf(newPassword: string, confirmPassword: string, email: string): string[] {
  if (newPassword === '') return [MISSING_NEW_PASSWORD];
  const failed = failedPasswordRules({ password: newPassword, email, currentPassword: '' });
  const errors = failed.map((id) => PASSWORD_RULE_SERVER_ERRORS[id]);
  if (confirmPassword !== newPassword) errors.push(`${CONFIRM_PASSWORD_MISMATCH_MESSAGE}.`);
  return errors;
}
