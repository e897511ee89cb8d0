/**
 * Sign-in is a sequence of steps, each a page with a form. A step's submit either shows its page again
 * (with an error), hands over to another step, or finishes the login.
 *
 * Steps: "password" (or passwordless with a passkey), then, for accounts with an active 2-step method,
 * "verification-code" (a code from the authenticator app, or one sent by email on request, or a passkey, or a
 * recovery code). The routes keep the verified account id in the interaction (server side) between steps.
 */
import type { ActivityLog } from '../../activity/log.js';
import type { Directory, User } from '../../directory/directory.js';
import { normaliseEmail } from '../../directory/directory.js';
import type { StepUpService } from '../../factors/step-up.js';
import { HttpError } from '../../http/errors.js';
import type { Notifier } from '../../notifications/types.js';
import type { PasskeyService } from '../../passkeys/service.js';
import { API_ERRORS } from 'shared-auth/contract';
import type { Device } from './device-cookie.js';
import {
  MISSING_CREDENTIALS,
  MISSING_RECOVERY_CODE,
  MISSING_VERIFICATION_CODE,
  recoveryCodePage,
  signInPage,
  tooManyAttempts,
  verificationCodePage,
  verificationCodePageWithRecoveryCodes,
  blockedPasskeysPage,
  WRONG_CREDENTIALS,
  WRONG_RECOVERY_CODE,
  WRONG_VERIFICATION_CODE,
} from './pages.js';
import { retryAfterSeconds, type Throttle } from '../../throttles/throttle.js';
import { PASSKEY_ACTION, PASSKEY_REFUSED, type PasskeyUi } from './passkey-pages.js';
import { PASSKEY_AMR, passkeyAnswerOf, verifyPasskeySignIn } from './passkey-sign-in.js';

/** The throttle key of a browser the account does not know: the email as typed, normalised and hashed (no
 * address or mistyped password is stored in clear), with `hash` a keyed hash of the server's. */
export function emailKey(normalisedEmail: string, hash: (value: string) => string): string {
  return `email:${hash(normalisedEmail)}`;
}

/** The throttle key of a browser that signed in to this account before (its device cookie). */
export function deviceKey(deviceId: string, accountId: string): string {
  return `device:${deviceId}:${accountId}`;
}

export type StepOutcome =
  /** Show the step's page again, e.g. with an error (and headers such as Retry-After on a 429). */
  | { kind: 'again'; statusCode: number; html: string; headers?: Record<string, string> }
  /** The account is identified; continue with another step before finishing. */
  | { kind: 'next'; step: string; accountId: string; amr: string[] }
  /** The login is complete. */
  | { kind: 'done'; accountId: string; amr: string[] };

export interface StepContext {
  /** The interaction's uid: its passkey challenges are bound to it. */
  interactionUid: string;
  /** Where this step's form posts to. */
  action: string;
  /** The pages' passkey parts, when passkeys are available (the embedded backend). */
  passkeys?: PasskeyUi | undefined;
  /** The interaction's CSRF token, for the form's hidden field. */
  csrf: string;
  /** Set once an earlier step identified the account. */
  accountId?: string | undefined;
  /** The browser's device cookie, when it has a valid one. */
  device?: Device | undefined;
  /** The request's User-Agent, for the account holder's notices and activity. */
  userAgent?: string | undefined;
  /** The request's address, for the account's activity (kept coarse). */
  ip?: string | undefined;
}

export interface SignInStep {
  name: string;
  render(context: StepContext): Promise<string>;
  submit(context: StepContext, form: Record<string, string | undefined>): Promise<StepOutcome>;
}

/** Which step follows a correct password; undefined means the login is done. */
export type NextStepAfterPassword = (user: User) => Promise<string | undefined>;

export const PASSWORD_STEP = 'password';

export interface PasswordStepDeps {
  directory: Directory;
  /** Failed sign-ins per key (SIGN_IN_LIMIT), reserved before argon2 runs. */
  throttle: Throttle;
  /** Tells the account holder when strangers' failures lock their email. */
  notifier: Notifier;
  /** A keyed hash of the server's, for the email throttle keys. */
  hashEmail: (normalisedEmail: string) => string;
  /** The app's clock. */
  now: () => number;
  /** How long a lockout lasts: at most one lock notice per account in this time. */
  lockMs: number;
  /** Passkeys: passwordless sign-in and the second step. */
  passkeys: PasskeyService;
  /** The account's activity: refused sign-ins of a known account. */
  activity: ActivityLog;
}

export function passwordStep(
  { directory, throttle, notifier, hashEmail, now, lockMs, passkeys, activity }: PasswordStepDeps,
  nextStepAfterPassword: NextStepAfterPassword,
): SignInStep {
  /** Tells the account holder that their email is locked, once per lockout period. */
  async function noticeLock(user: User, key: string, userAgent: string | undefined) {
    const at = now();
    const event = {
      type: 'account-locked',
      reason: 'sign-in',
      until: at + (await throttle.retryAfterMs(key)),
    } as const;
    if (await notifier.queuedSince(user.id, event, at - lockMs)) return;
    await notifier.queue({ id: user.id, email: user.email }, event, { at, userAgent });
  }

  /**
   * Passwordless: a discoverable passkey with user verification is two factors by itself, so the login is done.
   * Refusals show the sign-in page again with the passkeys' text; the per-address form limit counts every post.
   */
  async function withPasskey(
    context: StepContext,
    form: Record<string, string | undefined>,
  ): Promise<StepOutcome> {
    const { action, csrf, passkeys: ui } = context;
    const again = (statusCode: number, error: string, headers?: Record<string, string>): StepOutcome => ({
      kind: 'again',
      statusCode,
      html: signInPage({ action, csrf, error, passkeys: ui }),
      ...(headers ? { headers } : {}),
    });
    const answer = passkeyAnswerOf(form);
    if (!answer || !ui) return again(400, PASSKEY_REFUSED);
    try {
      const userId = await verifyPasskeySignIn(
        passkeys,
        context.interactionUid,
        answer,
        null,
        context.userAgent,
      );
      const user = await directory.findById(userId);
      // A federated account signs in at its organization and never holds a passkey here.
      if (!user || user.isFederated) return again(400, PASSKEY_REFUSED);
      return { kind: 'done', accountId: user.id, amr: [...PASSKEY_AMR] };
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      return again(error.statusCode, error.message, error.headers);
    }
  }

  return {
    name: PASSWORD_STEP,
    render: async ({ action, csrf, passkeys: ui }) => signInPage({ action, csrf, passkeys: ui }),
    async submit(context, form) {
      if (form.action === PASSKEY_ACTION) return withPasskey(context, form);
      const { action, csrf, device, userAgent, passkeys: ui } = context;
      const email = (form.email ?? '').trim();
      const password = form.password ?? '';
      if (email === '' || password === '') {
        return {
          kind: 'again',
          statusCode: 400,
          html: signInPage({ action, csrf, email, error: MISSING_CREDENTIALS, passkeys: ui }),
        };
      }
      // A browser that signed in to this account before counts under its own key; every other one under the email.
      const account = await directory.findByEmail(email);
      const trusted = account !== undefined && device !== undefined && device.accounts.includes(account.id);
      const key = trusted ? deviceKey(device.id, account.id) : emailKey(normaliseEmail(email), hashEmail);
      // Reserved before argon2 runs; a storage error here refuses the sign-in (the routes answer 503).
      const reserved = await throttle.reserve(key);
      if (reserved.kind === 'refused') {
        return {
          kind: 'again',
          statusCode: 429,
          html: signInPage({
            action,
            csrf,
            email,
            error: tooManyAttempts(reserved.retryAfterMs),
            passkeys: ui,
          }),
          headers: { 'Retry-After': String(retryAfterSeconds(reserved.retryAfterMs)) },
        };
      }
      const user = await directory.verifyPassword(email, password);
      if (!user) {
        const locks = throttle.locks(reserved.reservation);
        // The failure that locks the email of an existing account (not a device's own key, not unknown emails).
        if (account && !trusted && locks) await noticeLock(account, key, userAgent);
        // The account's activity: each wrong password, the one that locks as such (the refused attempts while it
        // is locked are not checked, and not listed: strangers could fill the list with them).
        if (account) {
          await activity.recordRefusal(
            { userId: account.id, kind: 'sign-in-failed', detail: locks ? 'locked' : 'wrong-password' },
            context,
          );
        }
        return {
          kind: 'again',
          statusCode: 401,
          html: signInPage({ action, csrf, email, error: WRONG_CREDENTIALS, passkeys: ui }),
        };
      }
      // A right password: the reservation and every failure of its key are forgotten.
      await throttle.clear(key);
      const next = await nextStepAfterPassword(user);
      return next
        ? { kind: 'next', step: next, accountId: user.id, amr: ['pwd'] }
        : { kind: 'done', accountId: user.id, amr: ['pwd'] };
    },
  };
}

export const VERIFICATION_CODE_STEP = 'verification-code';

/**
 * What a sign-in with a recovery code puts in `amr`: no RFC 8176 value fits (a recovery code is neither an OTP nor
 * knowledge-based authentication: NIST SP 800-63B calls it a look-up secret), and the RFC lets parties agree on
 * values of their own. With the password it is still two factors, so 'mfa' too.
 */
export const RECOVERY_CODE_AMR = 'recovery-code';

/**
 * The second step: a code from the authenticator app, or an email code sent on request ("Send code by email"), or
 * a passkey of the account ("Use a passkey"), or, for an account with unused recovery codes, one of them ("Use a
 * recovery code" shows its form, "Use a verification code instead" goes back). Wrong codes, passkey answers,
 * recovery codes and email sends go through the same per-user throttles as the Security page.
 */
export function verificationCodeStep(
  directory: Directory,
  factors: StepUpService,
  passkeys: PasskeyService,
  activity: ActivityLog,
): SignInStep {
  /** A wrong code or recovery code at the second step, in the account's activity. */
  const wrongCode = (user: User, context: StepContext) =>
    activity.recordRefusal({ userId: user.id, kind: 'sign-in-failed', detail: 'wrong-code' }, context);

  async function pageFor(
    { action, csrf, passkeys: ui }: StepContext,
    user: User,
    extra: { error?: string; notice?: string } = {},
  ) {
    const active = await factors.activeTypes(user.id);
    // Only passkeys that still work (not blocked as copies) offer the button.
    const methods = await factors.activeFactorsData(user);
    const usablePasskey = methods.passkey !== undefined;
    // The holder's default method leads (issue 22); the authenticator app's code field leads anyway. Email leads only
    // until a code was sent or refused: then the field it goes into does.
    const preferred = await factors.preferredMethod(user.id, methods);
    const lead =
      preferred === 'passkey' && ui
        ? preferred
        : preferred === 'email' && extra.notice === undefined && extra.error === undefined
          ? preferred
          : undefined;
    const withRecoveryCodes = (await factors.recoveryCodes.left(user.id)) > 0;
    if (active.length === 0 && !usablePasskey) {
      // Its only methods are passkeys blocked as copies: a recovery code, or a reset through the mailbox.
      return blockedPasskeysPage({ action, csrf, recoveryCodes: withRecoveryCodes, error: extra.error });
    }
    const options = {
      action,
      csrf,
      authenticator: active.includes('googleAuth'),
      email: active.includes('email'),
      passkeys: usablePasskey ? ui : undefined,
      lead,
      ...extra,
    };
    return withRecoveryCodes ? verificationCodePageWithRecoveryCodes(options) : verificationCodePage(options);
  }

  return {
    name: VERIFICATION_CODE_STEP,
    async render(context) {
      const user = context.accountId ? await directory.findById(context.accountId) : undefined;
      if (!user) return signInPage({ action: context.action, csrf: context.csrf, error: 'Sign in again.' });
      return pageFor(context, user);
    },
    async submit(context, form) {
      const { accountId } = context;
      const user = accountId ? await directory.findById(accountId) : undefined;
      if (!user) throw new Error('The verification-code step ran without an account');
      // The factors were removed meanwhile (e.g. in another browser): nothing more to check.
      if (!(await factors.requiresSecondStep(user.id))) return { kind: 'done', accountId: user.id, amr: [] };
      // The recovery code's form answers on its own page; every other action on the code page.
      const withRecoveryCode = form.action === 'recovery-code';
      const again = async (
        statusCode: number,
        extra: { error?: string; notice?: string },
        headers?: Record<string, string>,
      ) => ({
        kind: 'again' as const,
        statusCode,
        html: withRecoveryCode
          ? recoveryCodePage({ action: context.action, csrf: context.csrf, error: extra.error })
          : await pageFor(context, user, extra),
        ...(headers ? { headers } : {}),
      });
      try {
        if (form.action === 'use-recovery-code') {
          // Only an account with unused codes gets their form; any other is back on the code page.
          if ((await factors.recoveryCodes.left(user.id)) === 0) return again(200, {});
          return {
            kind: 'again',
            statusCode: 200,
            html: recoveryCodePage({ action: context.action, csrf: context.csrf }),
          };
        }
        if (form.action === 'use-verification-code') return again(200, {});
        if (withRecoveryCode) {
          const typed = (form.recoveryCode ?? '').trim();
          if (typed === '') return again(400, { error: MISSING_RECOVERY_CODE });
          const outcome = await factors.recoveryCodes.use(user, typed, {
            use: 'sign-in',
            userAgent: context.userAgent,
            ip: context.ip,
          });
          if (outcome === 'wrong') {
            await wrongCode(user, context);
            return again(400, { error: WRONG_RECOVERY_CODE });
          }
          return { kind: 'done', accountId: user.id, amr: [RECOVERY_CODE_AMR, 'mfa'] };
        }
        if (form.action === PASSKEY_ACTION) {
          const answer = passkeyAnswerOf(form);
          if (!answer) return again(400, { error: PASSKEY_REFUSED });
          await verifyPasskeySignIn(passkeys, context.interactionUid, answer, user, context.userAgent);
          return { kind: 'done', accountId: user.id, amr: [...PASSKEY_AMR] };
        }
        if (form.action === 'send-email') {
          const masked = await factors.sendVerificationEmail(user);
          return again(200, { notice: `We sent a code to ${masked}. It is valid for 10 minutes.` });
        }
        const code = (form.code ?? '').trim();
        if (code === '') return again(400, { error: MISSING_VERIFICATION_CODE });
        await factors.verifyAnyFactor(user, code);
        return { kind: 'done', accountId: user.id, amr: ['otp', 'mfa'] };
      } catch (error) {
        if (!(error instanceof HttpError)) throw error;
        const wrong = error.code === API_ERRORS.invalidCode.code;
        if (wrong) await wrongCode(user, context);
        const message = wrong ? WRONG_VERIFICATION_CODE : error.message;
        // The throttles' 429s carry Retry-After, as on the API.
        return again(error.statusCode, { error: message }, error.headers);
      }
    },
  };
}

export function buildSteps(deps: PasswordStepDeps & { factors: StepUpService }): Map<string, SignInStep> {
  const { directory, factors, passkeys, activity } = deps;
  // A correct password finishes the login, unless the account has an active 2-step factor.
  const steps = [
    passwordStep(deps, async (user) =>
      (await factors.requiresSecondStep(user.id)) ? VERIFICATION_CODE_STEP : undefined,
    ),
    verificationCodeStep(directory, factors, passkeys, activity),
  ];
  return new Map(steps.map((step) => [step.name, step]));
}
