/**
 * What the "Forgot password" pages (reset-routes.ts) ask of the password reset (password/reset.ts implements it).
 * The reset's rules live in src/password, a layer above src/oidc, so the pages name this port and the provider
 * plugin hands them the implementation.
 */

/** The reset pages' path under the provider's mount (the sign-in page links to it), and the paths below it. */
export const RESET_PATH = '/reset-password';
/** oidc/edge.ts lets exactly these in; reset-routes.ts serves them. */
export const RESET_SUBPATHS = [
  'link',
  'verify',
  'passkey-options',
  'new-password',
  'page.js',
  'password-policy.js',
] as const;

/** Where a reset link stands when it is opened or posted, i.e. which page comes next. */
export type ResetLinkStep =
  /** Bad, expired, used or voided (a newer link, a changed password, too many posts): ask for a new one. */
  | { kind: 'invalid' }
  /** The account has an active second factor other than email, or a passkey: its proof comes first. */
  | {
      kind: 'code';
      statusCode: number;
      /** Whether a recovery code is accepted as well (the recovery codes are wired). */
      recoveryCodes: boolean;
      /** Whether the authenticator app's code is asked (an active factor other than email). */
      authenticator: boolean;
      /** Whether the account's passkey is offered ("Use a passkey"). */
      passkeys: boolean;
      /** The holder's default method (issue 22), when the page offers it: "Use a passkey" then leads. */
      lead?: 'passkey' | undefined;
      error?: string | undefined;
      /** Set on a throttle's 429. */
      retryAfterMs?: number | undefined;
    }
  /** "Choose a new password". */
  | {
      kind: 'password';
      statusCode: number;
      /** The account's email: the policy's email rule needs it. */
      email: string;
      /** The account's only 2-step method is email, which the link proves: no code was asked (the page says so). */
      emailOnly2Step: boolean;
      /** One sentence per refusal, in checklist order. */
      errors?: string[] | undefined;
    }
  /** The password is changed: the browser goes to sign in. */
  | { kind: 'done' };

/** The browser the request came from: its notice names it, and its own sign-in lockout goes too. */
export interface ResetRequestContext {
  userAgent: string | undefined;
  /** The request's address, for the account's activity (kept coarse). */
  ip?: string | undefined;
  /** The sign-in throttle key of this browser for the link's account (its device cookie), if it has one. */
  deviceThrottleKey?: ((userId: string) => string | undefined) | undefined;
}

export interface PasswordResetFlow {
  /**
   * Counts a reset request under the typed email (the same work for every email, an account's or not), before the
   * answer: past the limit, refused with the wait. Throws the storage error when it cannot be counted.
   */
  admitRequest(email: string): Promise<{ kind: 'admitted' } | { kind: 'throttled'; retryAfterMs: number }>;
  /**
   * Everything that depends on the email, run after the answer went out: the account, its link, its mail. Never
   * throws (a failure is logged).
   */
  sendLinkAfterAnswer(email: string): void;
  /** A link opened from its mail. */
  open(token: string): Promise<ResetLinkStep>;
  /** The second factor's code, posted with the link's token. */
  verify(token: string, code: string, context: ResetRequestContext): Promise<ResetLinkStep>;
  /** The passkey options of the link's code step (JSON for its page script), or the refusal's text. */
  passkeyOptions(
    token: string,
  ): Promise<
    | { kind: 'options'; options: Record<string, unknown> }
    | { kind: 'refused'; statusCode: number; error: string; retryAfterMs?: number | undefined }
  >;
  /** The second factor proved with a passkey: the browser's answer (undefined when the form carried none). */
  verifyPasskey(
    token: string,
    answer: ({ id: string } & Record<string, unknown>) | undefined,
    context: ResetRequestContext,
  ): Promise<ResetLinkStep>;
  /** The new password, posted with the link's token. */
  setPassword(
    token: string,
    fields: { newPassword: string; confirmPassword: string },
    context: ResetRequestContext,
  ): Promise<ResetLinkStep>;
}
