/**
 * The embedded backend's 2-step factors: `user_factors` rows in the portal's database, what differs by kind in
 * the kind's module (kinds/), the email codes mailed by the portal itself (EmailCodes). Everything is in the
 * portal's database, so it takes part in the services' transactions (`inTransaction`).
 */
import { API_ERRORS, FACTOR_LABELS, type FactorName } from 'shared-auth/contract';
import type { SecretBox } from '../../crypto/secret-box.js';
import { refusal, type HttpError } from '../../http/errors.js';
import type { FactorRecord, FactorStore } from '../../storage/factors.js';
import type { Storage } from '../../storage/index.js';
import type { User } from '../../storage/users.js';
import type { Activation, IdentityFactor, IdentityFactors } from '../factors.js';
import type { AuthenticatorEnrolment, EmbeddedFactorContext, FactorEnrolment } from '../kinds/kind.js';
import { kindOf } from '../kinds/registry.js';
import type { EmailCodes } from './email-codes.js';

export interface EmbeddedFactorsOptions {
  /** The portal's database: factors and email codes. */
  storage: Storage;
  /** Seals the authenticator secrets (TOTP_ENCRYPTION_KEY). */
  box: SecretBox;
  /** The email codes' sender and checker. */
  emailCodes: EmailCodes;
  now: () => number;
  /** Where unreadable secrets are logged (the app's logger). */
  log?: { error(object: object, message: string): void } | undefined;
}

function toFactor(row: FactorRecord): IdentityFactor {
  return { type: row.type, status: row.status, enrolledAt: row.enrolledAt };
}

function alreadySetUp(type: FactorName): HttpError {
  return refusal(
    API_ERRORS.factorState,
    `${FACTOR_LABELS[type]} is already set up; remove it first to set it up again`,
  );
}

async function refuseIfSetUp(store: FactorStore, userId: string, type: FactorName): Promise<void> {
  const status = (await store.factor(userId, type))?.status;
  if (status === 'ACTIVE' || status === 'INACTIVE') throw alreadySetUp(type);
}

export class EmbeddedFactors implements IdentityFactors {
  readonly factorTurnOff = 'keeps' as const;
  private readonly storage: Storage;
  private readonly factors: FactorStore;
  private readonly now: () => number;

  constructor(private readonly options: EmbeddedFactorsOptions) {
    this.storage = options.storage;
    this.factors = options.storage.factors;
    this.now = options.now;
  }

  inTransaction(tx: Storage): EmbeddedFactors {
    return new EmbeddedFactors({ ...this.options, storage: tx });
  }

  /** What a kind's module works with. */
  private get context(): EmbeddedFactorContext {
    const { box, emailCodes, now, log } = this.options;
    return { store: this.factors, box, emailCodes, now, log };
  }

  async listFactors(userId: string): Promise<IdentityFactor[]> {
    return (await this.factors.factors(userId)).map(toFactor);
  }

  /**
   * The kind starts the set-up (a new sealed secret, or a code mailed), then the row turns pending. Checked
   * before the kind acts and again with the write: a factor set up meanwhile (the mail took a while) is not
   * reset to pending.
   */
  async enrol(user: User, type: FactorName): Promise<FactorEnrolment> {
    await refuseIfSetUp(this.factors, user.id, type);
    const { secretEnc, answer } = await kindOf(type).embedded.enrol(this.context, user);
    await this.storage.transaction(async (tx) => {
      await refuseIfSetUp(tx.factors, user.id, type);
      await tx.factors.putPending(user.id, type, secretEnc, this.now());
    });
    return answer;
  }

  /** The authenticator app's set-up (enrol, for a caller that knows the kind). */
  async enrollAuthenticator(user: User): Promise<AuthenticatorEnrolment> {
    return (await this.enrol(user, 'googleAuth')) as AuthenticatorEnrolment;
  }

  /** Email's set-up: mails an activation code and marks the email factor pending. */
  async enrollEmail(user: User): Promise<void> {
    await this.enrol(user, 'email');
  }

  /** The code is checked now (and used up where the kind keeps codes); the pending → active change in `commit`. */
  async activate(userId: string, type: FactorName, code: string): Promise<Activation | undefined> {
    const row = await this.factors.factor(userId, type);
    const notPending = () =>
      refusal(
        API_ERRORS.factorState,
        row ? `${FACTOR_LABELS[type]} is already set up` : `Start setting up ${FACTOR_LABELS[type]} first`,
      );
    if (row?.status !== 'PENDING_ACTIVATION') throw notPending();
    const checked = await kindOf(type).embedded.check(this.context, row, code, 'activate');
    if (!checked.accepted) return undefined;
    return {
      commit: async (tx) => {
        // Pending → active is a compare-and-set: of two activations racing, one changes the factor.
        if (!(await tx.factors.activate(userId, type, checked.step, this.now()))) throw notPending();
        const active = await tx.factors.factor(userId, type);
        if (!active) throw notPending();
        return toFactor(active);
      },
    };
  }

  async sendVerificationEmail(user: User): Promise<void> {
    await this.activeRow(user.id, 'email');
    await this.options.emailCodes.send(user, 'verify', this.factors);
  }

  async verify(userId: string, type: FactorName, code: string): Promise<boolean> {
    const row = await this.activeRow(userId, type);
    const checked = await kindOf(type).embedded.check(this.context, row, code, 'verify');
    if (!checked.accepted) return false;
    // Recording the step is a compare-and-set: of two requests racing with one code, only one gets through.
    return checked.step === null || (await this.factors.setLastStep(userId, type, checked.step));
  }

  async setEnabled(userId: string, type: FactorName, enabled: boolean): Promise<IdentityFactor | undefined> {
    await this.factors.setStatus(userId, type, enabled ? 'ACTIVE' : 'INACTIVE', this.now());
    const row = await this.factors.factor(userId, type);
    return row && toFactor(row);
  }

  async remove(userId: string, type: FactorName): Promise<void> {
    await this.factors.deleteFactor(userId, type);
    await kindOf(type).embedded.removed?.(this.context, userId);
  }

  /** Housekeeping: the email codes expired by now. */
  pruneCodes(): Promise<number> {
    return this.factors.pruneCodes(this.now());
  }

  private async activeRow(userId: string, type: FactorName): Promise<FactorRecord> {
    const row = await this.factors.factor(userId, type);
    if (row?.status !== 'ACTIVE') {
      throw refusal(API_ERRORS.factorState, `${FACTOR_LABELS[type]} is not turned on for this account`);
    }
    return row;
  }
}
