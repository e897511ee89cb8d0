/**
 * A kind of 2-step factor (the authenticator app, email…): everything about it that is not the same for every
 * kind, in one module per kind (registered in registry.ts). The factor services and both identity backends call
 * these parts instead of branching on the factor's name, so a new kind adds a module and its registration.
 */
import type { ResendUserFactor, UserFactor } from '@okta/okta-sdk-nodejs';
import type {
  ActiveFactorsData,
  EmailEnrollResponse,
  FactorName,
  GoogleEnrollResponse,
} from 'shared-auth/contract';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { CodePurpose, FactorRecord, FactorStore } from '../../storage/factors.js';
import type { User } from '../../storage/users.js';

/** What the page needs to add the account to an authenticator app. */
export interface AuthenticatorEnrolment {
  /** The shared secret, base32 (typed in by hand). */
  secret: string;
  /** The otpauth:// URI (Key Uri Format) the page draws as a QR code. */
  qrLink: string;
}

/** What a started set-up answers the page (the contract's enroll answer of the kind). */
export type FactorEnrolment = GoogleEnrollResponse | EmailEnrollResponse;

export interface FactorKind<N extends FactorName = FactorName> {
  /** The contract's name of the kind (FactorName), the key of its calls and of its step-up data. */
  readonly name: N;
  /** What the page's step-up data tells about the kind once it is active (spec section 3). */
  describe(user: User): ActiveFactorsData;
  /**
   * Whether starting the set-up sends a code by email: it is then counted by the email-send throttle, and runs
   * outside the write transaction (a mail is not sent while the database's write lock is held).
   */
  readonly enrolSendsCode: boolean;
  /** The log line of a started set-up. */
  readonly enrolLogged: string;
  /** The kind in the embedded backend (the portal's `user_factors` rows). */
  readonly embedded: EmbeddedKind;
  /** The kind in the Okta backend (one of Okta's factor types). */
  readonly okta: OktaKind;
}

/** The embedded backend's means, handed to a kind: the factor rows, the sealing key, the email codes. */
export interface EmbeddedFactorContext {
  /** The factor rows (inside the caller's transaction when the backend is bound to one). */
  store: FactorStore;
  /** Seals and opens the authenticator secrets (TOTP_ENCRYPTION_KEY). */
  box: SecretBox;
  emailCodes: EmailCodeSender;
  now: () => number;
  log?: { error(object: object, message: string): void } | undefined;
}

/** The embedded backend's email codes (embedded/email-codes.ts). */
export interface EmailCodeSender {
  send(user: User, purpose: CodePurpose, store: FactorStore): Promise<void>;
  use(userId: string, purpose: CodePurpose, code: string, store: FactorStore): Promise<boolean>;
}

/** A code checked against a factor: refused, or accepted with the TOTP step it used (null: none to record). */
export type CodeCheck = { accepted: false } | { accepted: true; step: number | null };

export interface EmbeddedKind {
  /** Starts the set-up: the secret to keep with the pending row (sealed; null: none), and the page's answer. */
  enrol(
    context: EmbeddedFactorContext,
    user: User,
  ): Promise<{ secretEnc: string | null; answer: FactorEnrolment }>;
  /** Checks (and uses up, where the kind keeps codes) a code of the factor's row for `purpose`. */
  check(
    context: EmbeddedFactorContext,
    row: FactorRecord,
    code: string,
    purpose: CodePurpose,
  ): Promise<CodeCheck>;
  /** What goes with the factor when it is removed, besides its row. */
  removed?(context: EmbeddedFactorContext, userId: string): Promise<void>;
}

/** A pending Okta enrolment of the kind, as the Okta backend read it. */
export interface OktaPendingFactor {
  email: string | undefined;
}

export interface OktaKind {
  /** Okta's factorType and provider of the kind (others are not the portal's: hasUnmanagedActiveFactor). */
  readonly factorType: string;
  readonly provider: string;
  /** The body of POST /api/v1/users/{userId}/factors that enrols the kind. */
  enrolBody(user: User): Record<string, unknown>;
  /** The page's answer from Okta's enrolment; throws when Okta's answer lacks what the page needs. */
  enrolled(factor: UserFactor | undefined, user: User): FactorEnrolment;
  /**
   * A pending enrolment Okta can send a new code for instead of a new enrolment: the resend body, or undefined
   * when it must be enrolled again. Absent: always enrolled again.
   */
  resend?(pending: OktaPendingFactor, user: User): ResendUserFactor | undefined;
}
