/**
 * Recovery codes (issue 20): one-time codes the holder keeps on paper or in a password manager, to sign in or step
 * up when the phone or the mailbox is lost. A fallback of the 2-step methods, not one of them: they never count
 * among the active factors, they can be generated only while a method is on, and they go when the last one does.
 * Made here from crypto.randomInt (unbiased), shown once, and kept only as keyed hashes (HMAC-SHA-256 under a key
 * derived from TOTP_ENCRYPTION_KEY, kept out of the database); a code is used once, atomically.
 */
import { createHmac, randomInt } from 'node:crypto';
import {
  API_ERRORS,
  CROCKFORD_ALPHABET,
  formatRecoveryCode,
  normalizeRecoveryCode,
  RECOVERY_CODE_COUNT,
  type RecoveryCodesGenerated,
  type RecoveryCodesStatus,
} from 'shared-auth/contract';
import type { ActivityLog } from '../activity/log.js';
import { deriveKey } from '../crypto/secret-box.js';
import { refusal } from '../http/errors.js';
import type { IdentityFactors } from '../identity/factors.js';
import type { Notifier, RecoveryCodeUse } from '../notifications/types.js';
import type { Storage } from '../storage/index.js';
import type { User } from '../storage/users.js';
import { recordActivityOf } from './activity.js';
import type { Actor } from './actor.js';
import type { CodeAttempts } from './code-attempts.js';

/** Characters of one code (Crockford base32: 5 bits each, 50 bits a code). */
export const RECOVERY_CODE_LENGTH = 10;

/** The HKDF purpose label of the codes' HMAC key: a key of its own, derived from TOTP_ENCRYPTION_KEY. */
const KEY_PURPOSE = 'portal recovery codes';

/** The recovery codes' HMAC key, derived from the configured TOTP_ENCRYPTION_KEY. */
export function recoveryCodeKeyFrom(totpEncryptionKey: Buffer): Buffer {
  return deriveKey(totpEncryptionKey, KEY_PURPOSE);
}

/** One new code, normalised (10 Crockford characters, no dash): each character from randomInt, so unbiased. */
export function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < RECOVERY_CODE_LENGTH; i += 1)
    code += CROCKFORD_ALPHABET[randomInt(CROCKFORD_ALPHABET.length)];
  return code;
}

export const RECOVERY_CODES_UNAVAILABLE_ERROR =
  "Recovery codes are not available here: your organization's sign-in would not accept them.";
export const NO_ACTIVE_FACTOR_ERROR =
  'Turn on a 2-step verification method before generating recovery codes.';

export interface RecoveryCodesOptions {
  /**
   * The codes' HMAC key (recoveryCodeKeyFrom); null where the identity provider's sign-in cannot accept the
   * portal's codes (Okta mode): then they are not available at all.
   */
  key: Buffer | null;
  /** Whether a 2-step method is on (generating needs one). */
  identity: IdentityFactors;
  storage: Storage;
  /** The wrong-code throttle, shared with the factors' codes. */
  attempts: CodeAttempts;
  notifier: Notifier;
  /** The account's activity: a set generated, a code used, in the change's transaction. */
  activity: ActivityLog;
  now: () => number;
}

/** How a use was asked for: what the notice says, and the browser that asked. */
export interface RecoveryCodeUseContext {
  use: RecoveryCodeUse;
  userAgent?: string | undefined;
  /** The request's address, for the account's activity (kept coarse). */
  ip?: string | undefined;
  /**
   * false: the caller counts the attempt under the wrong-code throttle itself (the password reset reserves it and
   * clears it); default true, counted here.
   */
  counted?: boolean | undefined;
}

/**
 * The recovery codes of an account: their state, a new set, one code's use (under the wrong-code throttle), and
 * their removal with the last 2-step method. Refusals are HttpErrors with a message safe to show.
 */
export class RecoveryCodes {
  private readonly key: Buffer | null;
  private readonly identity: IdentityFactors;
  private readonly storage: Storage;
  private readonly attempts: CodeAttempts;
  private readonly notifier: Notifier;
  private readonly activity: ActivityLog;
  private readonly now: () => number;

  constructor(options: RecoveryCodesOptions) {
    ({
      key: this.key,
      identity: this.identity,
      storage: this.storage,
      attempts: this.attempts,
      notifier: this.notifier,
      activity: this.activity,
      now: this.now,
    } = options);
  }

  /** Whether the identity provider's sign-in accepts the portal's codes (embedded: yes; Okta: no). */
  get available(): boolean {
    return this.key !== null;
  }

  /** Bound to the user, so a hash copied onto another user's row matches nothing. */
  private hash(key: Buffer, userId: string, normalized: string): string {
    return createHmac('sha256', key).update(`${userId}\n${normalized}`).digest('hex');
  }

  private requireKey(): Buffer {
    if (!this.key) throw refusal(API_ERRORS.recoveryCodesUnavailable, RECOVERY_CODES_UNAVAILABLE_ERROR);
    return this.key;
  }

  /** The factors of `tx`'s transaction when the backend's data is in the portal's database (embedded). */
  private identityIn(tx: Storage): IdentityFactors {
    return this.identity.inTransaction ? this.identity.inTransaction(tx) : this.identity;
  }

  /** An active factor or a usable passkey (`tx`: the change's transaction), as StepUpService.hasActiveFactor. */
  private static async hasActiveFactor(
    identity: IdentityFactors,
    tx: Storage,
    userId: string,
  ): Promise<boolean> {
    return (
      (await identity.listFactors(userId)).some((factor) => factor.status === 'ACTIVE') ||
      (await tx.passkeys.countUsable(userId)) > 0
    );
  }

  // ---- Reading --------------------------------------------------------------------------------------------

  /** What the Security page's section shows (GET /api/recoverycodes/:sub). */
  async status(userId: string): Promise<RecoveryCodesStatus> {
    if (!this.available) return { available: false, left: 0, total: 0, generatedAt: null };
    const set = await this.storage.recoveryCodes.set(userId);
    return {
      available: true,
      left: set.left,
      total: set.total,
      generatedAt: set.generatedAt === undefined ? null : new Date(set.generatedAt).toISOString(),
    };
  }

  /** The unused codes (0 where they are not available): the step-up challenge and the sign-in step offer them. */
  async left(userId: string): Promise<number> {
    if (!this.available) return 0;
    return (await this.storage.recoveryCodes.set(userId)).left;
  }

  // ---- Changes --------------------------------------------------------------------------------------------

  /**
   * A new set, answered once: the old set stops working in the same transaction, which also checks that a 2-step
   * method is on (409 noActiveFactor otherwise) and queues the notice. The caller checked the step-up.
   */
  async generate(actor: Actor): Promise<RecoveryCodesGenerated> {
    const key = this.requireKey();
    const { user } = actor;
    const codes = new Set<string>();
    // Ten distinct codes (a repeat among 2^50 is next to impossible, but the set's key would refuse it).
    while (codes.size < RECOVERY_CODE_COUNT) codes.add(newRecoveryCode());
    const hashes = [...codes].map((code) => this.hash(key, user.id, code));
    const now = this.now();
    await this.storage.transaction(async (tx) => {
      if (!(await RecoveryCodes.hasActiveFactor(this.identityIn(tx), tx, user.id))) {
        throw refusal(API_ERRORS.noActiveFactor, NO_ACTIVE_FACTOR_ERROR);
      }
      await tx.recoveryCodes.replace(user.id, hashes, now);
      const event = { type: 'recovery-codes-generated' } as const;
      await this.notifier.queue(user, event, { userAgent: actor.userAgent, at: now }, tx.outbox);
      await recordActivityOf(this.activity, tx, user.id, event, actor);
    });
    return { codes: [...codes].map(formatRecoveryCode), generatedAt: new Date(now).toISOString() };
  }

  /**
   * Uses one code as typed (with or without the dash, any case, spaces around it): 'used' when it was an unused
   * code of the holder's set, now used up (exactly one of any number of racing uses gets it), its notice queued and
   * the wrong-code count cleared, with `then`'s writes (a step-up grant) in the same transaction; 'wrong'
   * otherwise, counted like a wrong factor code. Throws 429 when the wrong-code throttle refuses (counted before
   * anything is checked, so the answer does not depend on the code), 409 where codes are not available.
   */
  async use(
    user: User,
    typed: string,
    context: RecoveryCodeUseContext,
    then?: (tx: Storage) => Promise<void>,
  ): Promise<'used' | 'wrong'> {
    const key = this.requireKey();
    const counted = context.counted ?? true;
    const attempt = counted ? await this.attempts.reserve(user.id) : undefined;
    const normalized = normalizeRecoveryCode(typed);
    const used =
      normalized !== undefined &&
      (await this.storage.transaction(async (tx) => {
        const now = this.now();
        // The compare-and-set on used_at is the use: a lookup by keyed hash, nothing compared in memory.
        if (!(await tx.recoveryCodes.use(user.id, this.hash(key, user.id, normalized), now))) return false;
        const { left } = await tx.recoveryCodes.set(user.id);
        if (counted) await this.attempts.accepted(user.id, tx);
        await then?.(tx);
        const event = { type: 'recovery-code-used', use: context.use, left } as const;
        await this.notifier.queue(user, event, { userAgent: context.userAgent, at: now }, tx.outbox);
        await recordActivityOf(this.activity, tx, user.id, event, context);
        return true;
      }));
    if (used) return 'used';
    if (attempt) await this.attempts.stayCounted(user, context.userAgent, attempt);
    return 'wrong';
  }

  /**
   * After a 2-step method was turned off or removed, in that change's transaction `tx`: with no method on any
   * more, the codes go too (they are a fallback of the methods, never one of them), with a notice when any was
   * still unused.
   */
  async removeIfNoActiveFactor(actor: Actor, tx: Storage): Promise<void> {
    const { user } = actor;
    const set = await tx.recoveryCodes.set(user.id);
    if (set.total === 0) return;
    if (await RecoveryCodes.hasActiveFactor(this.identityIn(tx), tx, user.id)) return;
    await tx.recoveryCodes.deleteAll(user.id);
    if (set.left > 0) {
      await this.notifier.queue(
        user,
        { type: 'recovery-codes-removed' },
        { userAgent: actor.userAgent, at: this.now() },
        tx.outbox,
      );
    }
  }
}
