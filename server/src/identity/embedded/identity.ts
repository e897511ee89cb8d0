import { performance } from 'node:perf_hooks';
import { API_ERRORS, PASSWORD_CHANGE_ERRORS, type FactorName } from 'shared-auth/contract';
import { Directory, hashPassword, passwordMatches } from '../../directory/directory.js';
import type { ProfileChanges, User } from '../../directory/store.js';
import type { SecretBox } from '../../factors/secret-box.js';
import type { FactorRecord, FactorStore } from '../../factors/store.js';
import { checkTotp, newTotpSecret, totpUri } from '../../factors/totp.js';
import { HttpError, refusal } from '../../http/errors.js';
import type { Storage } from '../../storage/index.js';
import type {
  Activation,
  AuthenticatorEnrolment,
  IdentityBackend,
  IdentityFactor,
  PasswordChange,
  PasswordCheck,
} from '../types.js';
import type { EmailCodes } from './email-codes.js';

export { EMAIL_CODE_DIGITS, EMAIL_CODE_TTL_MS } from './email-codes.js';

export interface EmbeddedIdentityOptions {
  /** The portal's database: users (the directory), factors and email codes. */
  storage: Storage;
  /** Seals the authenticator secrets (TOTP_ENCRYPTION_KEY). */
  box: SecretBox;
  /** The email codes' sender and checker. */
  emailCodes: EmailCodes;
  now: () => number;
  /** Where unreadable secrets are logged (the app's logger). */
  log?: { error(object: object, message: string): void } | undefined;
}

const FACTOR_LABELS: Record<FactorName, string> = {
  googleAuth: 'Google Authenticator',
  email: 'Email verification',
};

function toFactor(row: FactorRecord): IdentityFactor {
  return { type: row.type, status: row.status, enrolledAt: row.enrolledAt };
}

function alreadySetUp(type: FactorName): HttpError {
  return refusal(
    API_ERRORS.factorState,
    `${FACTOR_LABELS[type]} is already set up; remove it first to set it up again`,
  );
}

/**
 * The embedded identity backend: accounts and argon2id passwords in the portal's directory (`users`), 2-step
 * factors in `user_factors` (RFC 6238 TOTP with the secret sealed by SecretBox, the last accepted step kept so a
 * code is used once), and email codes it mails itself (EmailCodes). Everything is in the portal's database, so it
 * takes part in the services' transactions (`inTransaction`).
 */
export class EmbeddedIdentity implements IdentityBackend {
  readonly kind = 'embedded' as const;
  readonly factorTurnOff = 'keeps' as const;
  readonly canCheckPasswords = true;
  private readonly storage: Storage;
  private readonly directory: Directory;
  private readonly factors: FactorStore;
  private readonly box: SecretBox;
  private readonly emailCodes: EmailCodes;
  private readonly now: () => number;
  private readonly log: EmbeddedIdentityOptions['log'];

  constructor(private readonly options: EmbeddedIdentityOptions) {
    const { storage, box, emailCodes, now, log } = options;
    this.storage = storage;
    this.directory = new Directory(storage.users);
    this.factors = storage.factors;
    this.box = box;
    this.emailCodes = emailCodes;
    this.now = now;
    this.log = log;
  }

  inTransaction(tx: Storage): IdentityBackend {
    return new EmbeddedIdentity({ ...this.options, storage: tx });
  }

  // ---- The account ----------------------------------------------------------------------------------------

  findById(userId: string): Promise<User | undefined> {
    return this.directory.findById(userId);
  }

  async findCaller(userId: string): Promise<{ user: User | undefined; cached: boolean }> {
    return { user: await this.directory.findById(userId), cached: false };
  }

  updateProfile(userId: string, changes: ProfileChanges): Promise<User | undefined> {
    return this.directory.updateProfile(userId, changes);
  }

  // ---- The password ---------------------------------------------------------------------------------------

  private async check(
    userId: string,
    password: string,
    beforeCheck: () => Promise<void>,
  ): Promise<PasswordCheck & { hash: string }> {
    const hash = await this.directory.passwordHashOf(userId);
    if (hash === undefined) throw refusal(API_ERRORS.notFound, 'The account no longer exists');
    if (hash === null) throw refusal(API_ERRORS.noLocalPassword, PASSWORD_CHANGE_ERRORS.noLocalPassword);
    await beforeCheck();
    const started = performance.now();
    const matches = await passwordMatches(hash, password);
    return { matches, verifyMs: performance.now() - started, hash };
  }

  async verifyPassword(
    userId: string,
    password: string,
    beforeCheck: () => Promise<void>,
  ): Promise<PasswordCheck> {
    const { matches, verifyMs } = await this.check(userId, password, beforeCheck);
    return { matches, verifyMs };
  }

  /** argon2 runs here, before the caller's transaction; `commit` only swaps the hash (compare-and-set). */
  async changePassword(
    userId: string,
    oldPassword: string,
    newPassword: string,
    beforeCheck: () => Promise<void>,
  ): Promise<PasswordChange> {
    const { matches, verifyMs, hash: currentHash } = await this.check(userId, oldPassword, beforeCheck);
    if (!matches) return { matches: false, verifyMs };
    const started = performance.now();
    const newHash = await hashPassword(newPassword);
    const hashMs = performance.now() - started;
    return {
      matches: true,
      verifyMs,
      hashMs,
      commit: async (tx) => {
        const now = new Date(this.now()).toISOString();
        if (!(await tx.users.replacePasswordHash(userId, currentHash, newHash, now))) {
          // Another change of this user's password committed while this one was hashing.
          throw refusal(
            API_ERRORS.concurrentChange,
            'The password was changed by another request meanwhile. Use the new current password and try again.',
          );
        }
      },
    };
  }

  // ---- Factors --------------------------------------------------------------------------------------------

  async listFactors(userId: string): Promise<IdentityFactor[]> {
    return (await this.factors.factors(userId)).map(toFactor);
  }

  /** A new secret, sealed (replacing a pending one); the factor stays pending until a correct code. */
  async enrollAuthenticator(user: User): Promise<AuthenticatorEnrolment> {
    const secret = newTotpSecret();
    const sealed = this.box.seal(secret, user.id);
    // The check and the write together: a factor activated meanwhile is not reset to pending.
    await this.storage.transaction(async (tx) => {
      await refuseIfSetUp(tx.factors, user.id, 'googleAuth');
      await tx.factors.putPending(user.id, 'googleAuth', sealed, this.now());
    });
    return { qrLink: totpUri(secret, user.email), secret };
  }

  /** Mails an activation code and marks the email factor pending. */
  async enrollEmail(user: User): Promise<void> {
    await refuseIfSetUp(this.factors, user.id, 'email');
    await this.emailCodes.send(user, 'activate', this.factors);
    // Checked again with the write: the mail took a while, and the factor may have been set up meanwhile.
    await this.storage.transaction(async (tx) => {
      await refuseIfSetUp(tx.factors, user.id, 'email');
      await tx.factors.putPending(user.id, 'email', null, this.now());
    });
  }

  /** The code is checked now (TOTP, or the email code used up); the pending → active change in `commit`. */
  async activate(userId: string, type: FactorName, code: string): Promise<Activation | undefined> {
    const row = await this.factors.factor(userId, type);
    const notPending = () =>
      refusal(
        API_ERRORS.factorState,
        row ? `${FACTOR_LABELS[type]} is already set up` : `Start setting up ${FACTOR_LABELS[type]} first`,
      );
    if (row?.status !== 'PENDING_ACTIVATION') throw notPending();
    let step: number | null = null;
    if (type === 'googleAuth') {
      step = this.totpStep(userId, row, code);
      if (step === null) return undefined;
    } else if (!(await this.emailCodes.use(userId, 'activate', code, this.factors))) {
      return undefined;
    }
    return {
      commit: async (tx) => {
        // Pending → active is a compare-and-set: of two activations racing, one changes the factor.
        if (!(await tx.factors.activate(userId, type, step, this.now()))) throw notPending();
        const active = await tx.factors.factor(userId, type);
        if (!active) throw notPending();
        return toFactor(active);
      },
    };
  }

  async sendVerificationEmail(user: User): Promise<void> {
    await this.activeRow(user.id, 'email');
    await this.emailCodes.send(user, 'verify', this.factors);
  }

  async verify(userId: string, type: FactorName, code: string): Promise<boolean> {
    const row = await this.activeRow(userId, type);
    if (type === 'email') return this.emailCodes.use(userId, 'verify', code, this.factors);
    const step = this.totpStep(userId, row, code);
    // Recording the step is a compare-and-set: of two requests racing with one code, only one gets through.
    return step !== null && (await this.factors.setLastStep(userId, type, step));
  }

  async setEnabled(userId: string, type: FactorName, enabled: boolean): Promise<IdentityFactor | undefined> {
    await this.factors.setStatus(userId, type, enabled ? 'ACTIVE' : 'INACTIVE', this.now());
    const row = await this.factors.factor(userId, type);
    return row && toFactor(row);
  }

  async remove(userId: string, type: FactorName): Promise<void> {
    await this.factors.deleteFactor(userId, type);
    if (type === 'email') await this.factors.deleteEmailCode(userId);
  }

  /** Housekeeping: the email codes expired by now. */
  pruneCodes(): Promise<number> {
    return this.factors.pruneCodes(this.now());
  }

  // ---- Helpers --------------------------------------------------------------------------------------------

  private async activeRow(userId: string, type: FactorName): Promise<FactorRecord> {
    const row = await this.factors.factor(userId, type);
    if (row?.status !== 'ACTIVE') {
      throw refusal(API_ERRORS.factorState, `${FACTOR_LABELS[type]} is not turned on for this account`);
    }
    return row;
  }

  /** The TOTP step the code belongs to, or null when it is wrong or a replay. */
  private totpStep(userId: string, row: FactorRecord, code: string): number | null {
    let secret: string;
    try {
      if (!row.secretEnc) throw new Error('no secret stored');
      secret = this.box.open(row.secretEnc, userId);
    } catch (error) {
      // A key that does not match the sealed secrets (start-up refuses that) or a damaged row: the caller counted
      // the attempt already, and the answer says the check is unavailable rather than wrong.
      this.log?.error({ err: error, userId }, 'authenticator secret cannot be opened');
      throw new HttpError(503, 'Authenticator codes cannot be checked right now. Try again later.', {
        'Retry-After': '60',
      });
    }
    const result = checkTotp(secret, code, this.now(), row.lastStep);
    return result.ok ? result.step : null;
  }
}

async function refuseIfSetUp(store: FactorStore, userId: string, type: FactorName): Promise<void> {
  const status = (await store.factor(userId, type))?.status;
  if (status === 'ACTIVE' || status === 'INACTIVE') throw alreadySetUp(type);
}
