/**
 * The pages of "Forgot password" (issue 20), in the sign-in pages' look (html.ts's frame): ask for a link, check
 * your email, the link's code step (the sign-in's 2-step page, pages.ts), choose a new password with the live
 * checklist of the shared policy, and the refusals. The texts are the product's (docs/texts.md).
 */
import {
  CONFIRM_PASSWORD_MISMATCH_MESSAGE,
  PASSWORD_RULE_IDS,
  PASSWORD_RULE_MESSAGES,
} from 'shared-auth/contract';
import { escapeHtml, page } from '../html.js';
import { CSRF_FIELD } from './csrf.js';
import { AUTHENTICATOR_HINT, PASSKEY_FIRST_HINT, verificationCodePage } from './pages.js';
import type { PasskeyUi } from './passkey-pages.js';

/** The code step of an account with a passkey and recovery codes, and no authenticator app. */
export const PASSKEY_OR_RECOVERY_CODE_HINT = 'Use your passkey, or enter one of your recovery codes.';
/** The code step when the holder's default, the passkey, leads (issue 22) and the authenticator app is there too. */
export const PASSKEY_FIRST_RESET_HINT = 'Use your passkey, or enter the code from your authenticator app.';

export const RESET_TITLE = 'Reset your password';
export const RESET_INTRO =
  'Enter the email of your account. We will send you a link to choose a new password.';
export const SEND_RESET_LINK = 'Send reset link';
export const CHECK_EMAIL_TITLE = 'Check your email';
export const LINK_EXPIRED_TITLE = 'This link has expired or was already used';
export const LINK_EXPIRED_TEXT =
  'A reset link works once, for 30 minutes, and only the newest link you asked for works. Ask for a new one.';
export const ASK_FOR_NEW_LINK = 'Ask for a new link';
export const NEW_PASSWORD_TITLE = 'Choose a new password';
export const MISSING_EMAIL = 'Enter the email of your account.';
export const RESET_UNAVAILABLE = 'Password reset is not possible right now. Try again in a moment.';
export const EMAIL_ONLY_NOTE =
  'Your 2-step verification is by email only, and this link came to that address, so no code is asked.';
export const CODE_FIRST_NOTE =
  'Your account uses 2-step verification: enter a code before you choose a new password.';
export const RECOVERY_CODE_HINT = 'Lost your authenticator app? Enter one of your recovery codes instead.';
export const LOST_EVERYTHING =
  'Lost your authenticator app and every recovery code? Your password cannot be reset without them, to keep your account safe: contact support.';
export const SUPPORT_FALLBACK = 'Contact your support team.';

/** "Check your email": the same page whatever the email. */
export function checkEmailText(email: string): string {
  return `If an account uses ${email}, a link to reset its password is on its way. The link works once, for 30 minutes.`;
}

/** "N minutes" of a refusal, rounded up (at least 1 second). */
export function waitInWords(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

export function tooManyResetRequests(ms: number): string {
  return `Three reset links were already sent for this email within an hour. Use the newest one, or try again in ${waitInWords(ms)}.`;
}

export function tooManyRequestsFromNetwork(ms: number): string {
  return `Too many requests from your network. Try again in ${waitInWords(ms)}.`;
}

export interface ResetPaths {
  /** The request form (GET) and its post. */
  request: string;
  /** Where the link's code posts. */
  verify: string;
  /** Where the new password posts. */
  newPassword: string;
  /** The page script (checklist, and the token out of the address). */
  script: string;
  /** The portal's start: a new sign-in. */
  signIn: string;
}

const backToSignIn = (paths: ResetPaths) =>
  `<p><a href="${escapeHtml(paths.signIn)}">Back to sign in</a></p>`;

const alert = (message: string | undefined) =>
  message ? `<div id="form-error" role="alert">${escapeHtml(message)}</div>` : '';

/** "Reset your password": one field, Email, and "Send reset link". */
export function resetRequestPage(
  paths: ResetPaths,
  options: { email?: string; error?: string } = {},
): string {
  const { email = '', error } = options;
  const describedBy = error ? ' aria-describedby="form-error"' : '';
  return page(
    `${RESET_TITLE} · My Profile`,
    `<h1>${RESET_TITLE}</h1>
<p class="muted">${escapeHtml(RESET_INTRO)}</p>
${alert(error)}
<form method="post" action="${escapeHtml(paths.request)}" novalidate>
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus value="${escapeHtml(email)}"${describedBy}>
<button type="submit">${SEND_RESET_LINK}</button>
</form>
${backToSignIn(paths)}`,
  );
}

/** "Check your email": the answer to every request, whatever the email. */
export function checkEmailPage(paths: ResetPaths, email: string): string {
  return page(
    `${CHECK_EMAIL_TITLE} · My Profile`,
    `<h1>${CHECK_EMAIL_TITLE}</h1>
<p role="status">${escapeHtml(checkEmailText(email))}</p>
${backToSignIn(paths)}`,
  );
}

/** A bad, expired, used or voided link, with the way to ask for a new one. */
export function linkExpiredPage(paths: ResetPaths): string {
  return page(
    `${LINK_EXPIRED_TITLE} · My Profile`,
    `<h1>${LINK_EXPIRED_TITLE}</h1>
<p>${escapeHtml(LINK_EXPIRED_TEXT)}</p>
<p><a href="${escapeHtml(paths.request)}">${ASK_FOR_NEW_LINK}</a></p>
${backToSignIn(paths)}`,
  );
}

/** A refusal of the reset pages: a title, the reason (with the wait, where there is one) and a way on. */
export function resetProblemPage(
  paths: ResetPaths,
  message: string,
  retry?: { href: string; label: string },
): string {
  return page(
    `${RESET_TITLE} · My Profile`,
    `<h1>${RESET_TITLE}</h1>
<p role="alert">${escapeHtml(message)}</p>
${retry ? `<p><a href="${escapeHtml(retry.href)}">${escapeHtml(retry.label)}</a></p>` : ''}
${backToSignIn(paths)}`,
  );
}

/** The link's token, moved from the address into the form's post (the field is the sign-in forms' proof field). */
function tokenInput(token: string): string {
  return `<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(token)}">`;
}

const scriptTag = (paths: ResetPaths) => `<script type="module" src="${escapeHtml(paths.script)}"></script>`;

/** Adds `html` at the end of a page's main content. */
function beforeMainEnd(pageHtml: string, html: string): string {
  const at = pageHtml.lastIndexOf('</main>');
  return at === -1 ? pageHtml : `${pageHtml.slice(0, at)}${html}\n${pageHtml.slice(at)}`;
}

export interface ResetCodePageOptions {
  token: string;
  recoveryCodes: boolean;
  /** Whether the authenticator app's code is asked. */
  authenticator: boolean;
  /** The passkey parts of the page, when the account has a passkey and the scripts can be served. */
  passkeys?: PasskeyUi | undefined;
  /** The holder's default method (issue 22): "Use a passkey" leads when the page offers it; absent, the fixed order. */
  lead?: 'passkey' | undefined;
  /** The support link of the settings' FooterLinks, if they have one. */
  support: { label: string; href: string } | undefined;
  error?: string | undefined;
}

/**
 * The link's code step: the sign-in's 2-step page (pages.ts, authenticator only: an email code proves nothing
 * the link does not), posting the token as its proof field, with what to do without the authenticator.
 */
export function resetCodePage(paths: ResetPaths, options: ResetCodePageOptions): string {
  const { token, recoveryCodes, authenticator, passkeys, lead, support, error } = options;
  const codePage = verificationCodePage({
    action: paths.verify,
    csrf: token,
    // The code field stays for a recovery code when the passkey is the only method.
    authenticator: authenticator || recoveryCodes || !passkeys,
    email: false,
    passkeys,
    lead,
    error,
  });
  // The same field takes a recovery code (XXXXX-XXXXX, typed with spaces or not): not digits only, nor 10 long.
  const withRecoveryField = recoveryCodes
    ? codePage.replace('inputmode="numeric"', 'inputmode="text"').replace('maxlength="10"', 'maxlength="32"')
    : codePage;
  // The sign-in page's hint, in this page's words: a passkey and recovery codes, no authenticator app, says the
  // field is for a recovery code only; a leading passkey speaks of no sign-in.
  const signInHint = lead === 'passkey' && passkeys ? PASSKEY_FIRST_HINT : AUTHENTICATOR_HINT;
  const resetHint =
    !authenticator && passkeys && recoveryCodes
      ? PASSKEY_OR_RECOVERY_CODE_HINT
      : signInHint === PASSKEY_FIRST_HINT
        ? PASSKEY_FIRST_RESET_HINT
        : undefined;
  const base = resetHint
    ? withRecoveryField.replace(escapeHtml(signInHint), escapeHtml(resetHint))
    : withRecoveryField;
  const supportLink = support
    ? `<a href="${escapeHtml(support.href)}">${escapeHtml(support.label)}</a>`
    : escapeHtml(SUPPORT_FALLBACK);
  return beforeMainEnd(
    base,
    `<p class="muted">${escapeHtml(CODE_FIRST_NOTE)}</p>
${recoveryCodes ? `<p class="muted">${escapeHtml(RECOVERY_CODE_HINT)}</p>` : ''}
<p class="muted" id="lost-everything">${escapeHtml(LOST_EVERYTHING)} ${supportLink}</p>
${scriptTag(paths)}`,
  );
}

/** The checklist's rules: the shared policy's (no current password in a reset), then the confirmation. */
const CHECKLIST = [
  ...PASSWORD_RULE_IDS.filter((id) => id !== 'notCurrent').map((id) => ({
    id: id as string,
    label: PASSWORD_RULE_MESSAGES[id],
  })),
  { id: 'confirm', label: CONFIRM_PASSWORD_MISMATCH_MESSAGE },
];

const CHECKLIST_STYLE =
  '<style>.rules{list-style:none;padding:0;margin:.5rem 0 0;font-size:.875rem}.rules li{color:#595959}.rules li.met{color:#135200}.rules .state{display:inline-block;width:1.25rem}.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}.note{margin:0 0 1rem;padding:.75rem;border:1px solid #91caff;border-radius:4px;background:#e6f4ff}</style>';

export interface NewPasswordPageOptions {
  token: string;
  email: string;
  emailOnly2Step: boolean;
  errors?: string[] | undefined;
}

/** "Choose a new password": New Password, Confirm Password and the Password page's live checklist. */
export function newPasswordPage(paths: ResetPaths, options: NewPasswordPageOptions): string {
  const { token, email, emailOnly2Step, errors = [] } = options;
  const describedBy =
    errors.length > 0 ? ' aria-describedby="form-error rules"' : ' aria-describedby="rules"';
  const rules = CHECKLIST.map(
    ({ id, label }) =>
      `<li data-rule="${id}"><span class="state" aria-hidden="true">✗</span>${escapeHtml(label)}<span class="sr-only"> (not met)</span></li>`,
  ).join('\n');
  return page(
    `${NEW_PASSWORD_TITLE} · My Profile`,
    `<h1>${NEW_PASSWORD_TITLE}</h1>
<p class="muted">For ${escapeHtml(email)}</p>
${emailOnly2Step ? `<p class="note" role="note">${escapeHtml(EMAIL_ONLY_NOTE)}</p>` : ''}
${errors.length > 0 ? `<div id="form-error" role="alert">${errors.map((e) => `<p>${escapeHtml(e)}</p>`).join('')}</div>` : ''}
<form method="post" action="${escapeHtml(paths.newPassword)}" id="new-password-form" data-email="${escapeHtml(email)}" novalidate>
${tokenInput(token)}
<input type="hidden" name="username" autocomplete="username" value="${escapeHtml(email)}">
<label for="new-password">New Password</label>
<input id="new-password" name="newPassword" type="password" autocomplete="new-password" required autofocus${describedBy}>
<label for="confirm-password">Confirm Password</label>
<input id="confirm-password" name="confirmPassword" type="password" autocomplete="new-password" required>
<span class="sr-only" id="rules-label">Password rules</span>
<ul class="rules" id="rules" aria-labelledby="rules-label" aria-live="polite">
${rules}
</ul>
<button type="submit">Save</button>
</form>
${scriptTag(paths)}`,
    CHECKLIST_STYLE,
  );
}
