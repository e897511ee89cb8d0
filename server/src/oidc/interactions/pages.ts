import { ISSUER_PATH } from 'shared-auth/contract';
import { escapeHtml, page } from '../html.js';
import { CSRF_FIELD } from './csrf.js';
import {
  passkeyFormAttributes,
  passkeyFormFields,
  passkeyHead,
  PASSKEY_ONLY_HINT,
  SIGN_IN_WITH_PASSKEY,
  USE_PASSKEY,
  type PasskeyUi,
} from './passkey-pages.js';
import { RESET_PATH } from './reset-flow.js';

/** "Forgot password?" under the password field opens the reset pages (reset-routes.ts). */
export const FORGOT_PASSWORD = 'Forgot password?';
const FORGOT_PASSWORD_HREF = `${ISSUER_PATH}${RESET_PATH}`;

export const WRONG_CREDENTIALS = 'Incorrect email or password.';
export const MISSING_CREDENTIALS = 'Enter your email and password.';

export function tooManyAttempts(retryAfterMs: number): string {
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  return `Too many failed sign-in attempts for this email. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/** The sign-in form's per-address ceiling (routes.ts), with the wait in words. */
export function tooManyFormPosts(retryAfterMs: number): string {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const wait =
    seconds < 60
      ? `${seconds} second${seconds === 1 ? '' : 's'}`
      : `${Math.ceil(seconds / 60)} minute${Math.ceil(seconds / 60) === 1 ? '' : 's'}`;
  return `Too many sign-in attempts from your network. Try again in ${wait}.`;
}

export const SIGN_IN_UNAVAILABLE = 'Sign-in is not possible right now. Try again in a moment.';
export const FORM_FROM_ANOTHER_SITE = 'This sign-in form was sent from another site.';
export const FORM_NOT_VALID = 'This sign-in form has expired or was not sent from this site.';

/** The look of the pages' secondary buttons. */
const SECONDARY_STYLE =
  '.secondary{color:#1668dc;background:#fff;border:1px solid #1668dc;margin-top:.75rem}.secondary:hover{background:#f0f5ff}';

/** The hidden field that proves a post comes from a form this server rendered for this interaction. */
function csrfInput(csrf: string): string {
  return `<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(csrf)}">`;
}

export interface SignInPageOptions {
  action: string;
  /** The interaction's CSRF token. */
  csrf: string;
  email?: string;
  error?: string;
  /** A confirmation above the form, e.g. that the password was just reset. */
  notice?: string | undefined;
  /** Passwordless sign-in: the button and the browser's passkey autofill on the email field. */
  passkeys?: PasskeyUi | undefined;
}

/**
 * Step 1 of sign-in: email and password. Plain HTML, labelled fields, errors in role=alert; with passkeys, a
 * same-origin script adds "Sign in with a passkey" and the autofill (the page works without it).
 */
export function signInPage({ action, csrf, email = '', error, notice, passkeys }: SignInPageOptions): string {
  const describedBy = error ? ' aria-describedby="form-error"' : '';
  return page(
    'Sign in · My Profile',
    `<h1>Sign in</h1>
<p class="muted">Use the email and password of your account.</p>
${notice ? `<div id="form-notice" role="status" class="notice">${escapeHtml(notice)}</div>` : ''}
${error ? `<div id="form-error" role="alert">${escapeHtml(error)}</div>` : ''}
<form method="post" action="${escapeHtml(action)}" novalidate${passkeys ? passkeyFormAttributes(passkeys, true) : ''}>
${csrfInput(csrf)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="${passkeys ? 'username webauthn' : 'username'}" required value="${escapeHtml(email)}"${describedBy}${email ? '' : ' autofocus'}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${describedBy}${email ? ' autofocus' : ''}>
<p class="forgot"><a href="${escapeHtml(FORGOT_PASSWORD_HREF)}">${FORGOT_PASSWORD}</a></p>
<button type="submit">Sign in</button>
${passkeys ? passkeyFormFields(SIGN_IN_WITH_PASSKEY) : ''}
</form>`,
    `<style>.forgot{margin:.5rem 0 0;font-size:.875rem}.notice{margin:0 0 1rem;padding:.75rem;border:1px solid #389e0d;border-radius:4px;background:#f6ffed;color:#135200}${passkeys ? SECONDARY_STYLE : ''}</style>${passkeys ? `\n${passkeyHead(passkeys)}` : ''}`,
  );
}

export function interactionErrorPage(message: string, portalUrl: string): string {
  return page(
    'Sign-in problem',
    `<h1>Sign-in problem</h1>
<p role="alert">${escapeHtml(message)}</p>
<p><a href="${escapeHtml(portalUrl)}/">Return to My Profile and sign in again</a></p>`,
  );
}

/**
 * The answer when a sign-in attempt cannot be recorded (full, read-only or locked database): the same page
 * whatever was typed, so it tells nothing about the password; "Try again" reopens the current step.
 */
export function signInUnavailablePage(retryUrl: string): string {
  return page(
    'Sign-in problem',
    `<h1>Sign in</h1>
<p role="alert">${escapeHtml(SIGN_IN_UNAVAILABLE)}</p>
<p><a href="${escapeHtml(retryUrl)}">Try again</a></p>`,
  );
}

export const WRONG_VERIFICATION_CODE = 'That verification code is not correct. Check it and try again.';
export const MISSING_VERIFICATION_CODE = 'Enter the verification code.';

export interface VerificationCodePageOptions {
  action: string;
  /** The interaction's CSRF token. */
  csrf: string;
  /** Which active factors the account has; the text and the email button follow them. */
  authenticator: boolean;
  email: boolean;
  /** The account has a usable passkey: "Use a passkey" (its script's options and files). */
  passkeys?: PasskeyUi | undefined;
  error?: string | undefined;
  /** A confirmation, e.g. that a code was sent by email. */
  notice?: string | undefined;
  /**
   * The method the page leads with (issue 22: the holder's default, when the page shows it): `email` puts "Send code
   * by email" first, `passkey` puts "Use a passkey" first, each as the main button. Absent: the fixed order (the
   * code field, then email, then the passkey).
   */
  lead?: 'email' | 'passkey' | undefined;
}

/** The 2-step page's hint when email leads: send first, or type the authenticator app's code. */
export const EMAIL_FIRST_HINT = 'Send a code to your email, then enter it here.';
export const EMAIL_FIRST_WITH_AUTHENTICATOR_HINT =
  'Send a code to your email and enter it here, or enter the code from your authenticator app.';
/** The 2-step page's hint when the passkey leads and codes are there too. */
export const PASSKEY_FIRST_HINT = 'Use your passkey to finish signing in, or enter a verification code.';

/**
 * Step 2 of sign-in for accounts with 2-step verification: a code from the app or from an email, and/or a passkey
 * ("Use a passkey", revealed by the page's script). An account whose only method is a passkey gets no code field.
 */
/** The 2-step page's hint when the authenticator app is the only code. */
export const AUTHENTICATOR_HINT = 'Enter the 6-digit code from your authenticator app.';

export function verificationCodePage({
  action,
  csrf,
  authenticator,
  email,
  passkeys,
  error,
  notice,
  lead,
}: VerificationCodePageOptions): string {
  const codes = authenticator || email || !passkeys;
  const emailFirst = lead === 'email' && email;
  const passkeyFirst = lead === 'passkey' && passkeys !== undefined && codes;
  const hint = !codes
    ? PASSKEY_ONLY_HINT
    : passkeyFirst
      ? PASSKEY_FIRST_HINT
      : emailFirst
        ? authenticator
          ? EMAIL_FIRST_WITH_AUTHENTICATOR_HINT
          : EMAIL_FIRST_HINT
        : authenticator && email
          ? 'Enter the code from your authenticator app, or send a code to your email and enter that one.'
          : authenticator
            ? AUTHENTICATOR_HINT
            : EMAIL_FIRST_HINT;
  const describedBy = error ? ' aria-describedby="form-error"' : '';
  // Email first: its button in a form of its own above the code's, so Enter in the code field still means Verify
  // (a form's Enter presses its first submit button).
  const sendEmailFirst = emailFirst
    ? `<form method="post" action="${escapeHtml(action)}" novalidate>
${csrfInput(csrf)}
<button type="submit" name="action" value="send-email">Send code by email</button>
</form>
<p class="muted">Or</p>
`
    : '';
  const passkeyButton = passkeys
    ? `${passkeyFormFields(USE_PASSKEY, passkeyFirst ? 'primary' : 'secondary')}\n`
    : '';
  return page(
    '2-step verification · My Profile',
    `<h1>2-step verification</h1>
<p class="muted">${escapeHtml(hint)}</p>
${error ? `<div id="form-error" role="alert">${escapeHtml(error)}</div>` : ''}
${notice ? `<div id="form-notice" role="status" class="notice">${escapeHtml(notice)}</div>` : ''}
${sendEmailFirst}<form method="post" action="${escapeHtml(action)}" novalidate${passkeys ? passkeyFormAttributes(passkeys, false) : ''}>
${csrfInput(csrf)}
${passkeyFirst ? passkeyButton : ''}${
      codes
        ? `<label for="code">Verification code</label>
<input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="10" required${passkeyFirst || emailFirst ? '' : ' autofocus'}${describedBy}>
<button type="submit" name="action" value="verify">Verify</button>
`
        : ''
    }${email && !emailFirst ? '<button type="submit" name="action" value="send-email" class="secondary" formnovalidate>Send code by email</button>\n' : ''}${passkeyFirst ? '' : passkeyButton}</form>`,
    `<style>${SECONDARY_STYLE}.notice{margin:0 0 1rem;padding:.75rem;border:1px solid #389e0d;border-radius:4px;background:#f6ffed;color:#135200}</style>${passkeys ? `\n${passkeyHead(passkeys)}` : ''}`,
  );
}

// ---- Recovery codes (issue 20) -------------------------------------------------------------------------------

export const WRONG_RECOVERY_CODE =
  'That recovery code is not correct or was already used. Check it and try again.';
export const MISSING_RECOVERY_CODE = 'Enter a recovery code.';

/**
 * Step 2 with "Use a recovery code" beside the code field, for an account that has unused recovery codes: the
 * code page's own markup, the button added to its form (a post, as "Send code by email": these pages run no JS).
 */
export function verificationCodePageWithRecoveryCodes(options: VerificationCodePageOptions): string {
  const html = verificationCodePage(options);
  // The code's form is the page's last (email may lead in a form of its own above it).
  const end = html.lastIndexOf('</form>');
  return `${html.slice(0, end)}<button type="submit" name="action" value="use-recovery-code" class="secondary" formnovalidate>Use a recovery code</button>\n${html.slice(end)}`;
}

/** The second step of an account whose only 2-step methods are passkeys blocked as copies. */
export const BLOCKED_PASSKEYS_TEXT =
  'Your passkey was blocked because a copy of it was used, so it cannot finish your sign-in.';
export const BLOCKED_PASSKEYS_WITH_CODES =
  'Use one of your recovery codes, or reset your password to get back in.';
export const BLOCKED_PASSKEYS_WITHOUT_CODES = 'Reset your password to get back in.';

/**
 * Step 2 of an account whose only methods are passkeys blocked as copies: 2-step verification stays on (whoever
 * copied the passkey may know the password), and the page says how to get back in: a recovery code, or a reset
 * through the mailbox (which clears the blocked passkeys).
 */
export function blockedPasskeysPage({
  action,
  csrf,
  recoveryCodes,
  error,
}: {
  action: string;
  csrf: string;
  recoveryCodes: boolean;
  error?: string | undefined;
}): string {
  return page(
    '2-step verification · My Profile',
    `<h1>2-step verification</h1>
<p>${escapeHtml(BLOCKED_PASSKEYS_TEXT)}</p>
<p class="muted">${escapeHtml(recoveryCodes ? BLOCKED_PASSKEYS_WITH_CODES : BLOCKED_PASSKEYS_WITHOUT_CODES)}</p>
${error ? `<div id="form-error" role="alert">${escapeHtml(error)}</div>` : ''}
${
  recoveryCodes
    ? `<form method="post" action="${escapeHtml(action)}" novalidate>
${csrfInput(csrf)}
<button type="submit" name="action" value="use-recovery-code">Use a recovery code</button>
</form>
`
    : ''
}<p class="forgot"><a href="${escapeHtml(FORGOT_PASSWORD_HREF)}">${FORGOT_PASSWORD}</a></p>`,
    '<style>.forgot{margin:.75rem 0 0;font-size:.875rem}</style>',
  );
}

export interface RecoveryCodePageOptions {
  action: string;
  /** The interaction's CSRF token. */
  csrf: string;
  error?: string | undefined;
}

/**
 * Step 2 with a recovery code instead of a verification code: the same look and accessibility as the code page (a
 * labelled field, the error in role=alert and named by the field, the field focused), and a way back to it.
 */
export function recoveryCodePage({ action, csrf, error }: RecoveryCodePageOptions): string {
  const describedBy = error ? ' aria-describedby="form-error"' : '';
  return page(
    '2-step verification · My Profile',
    `<h1>2-step verification</h1>
<p class="muted">Enter one of the recovery codes you saved, for example ABCDE-12345. Each code works once.</p>
${error ? `<div id="form-error" role="alert">${escapeHtml(error)}</div>` : ''}
<form method="post" action="${escapeHtml(action)}" novalidate>
${csrfInput(csrf)}
<label for="recovery-code">Recovery code</label>
<input id="recovery-code" name="recoveryCode" type="text" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="32" required autofocus${describedBy}>
<button type="submit" name="action" value="recovery-code">Verify</button>
<button type="submit" name="action" value="use-verification-code" class="secondary" formnovalidate>Use a verification code instead</button>
</form>`,
    '<style>.secondary{color:#1668dc;background:#fff;border:1px solid #1668dc;margin-top:.75rem}.secondary:hover{background:#f0f5ff}</style>',
  );
}
