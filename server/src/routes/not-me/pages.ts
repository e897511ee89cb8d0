/**
 * The pages of the "This wasn't me" link (issue 22), in the sign-in and reset pages' look (oidc/html.ts's frame,
 * no script): what the link will do and its one button, what it did, and the refusals. The texts are the
 * product's (docs/texts.md).
 */
import { escapeHtml, page } from '../../oidc/html.js';
import { formatUtc } from '../../notifications/texts.js';

export const NOT_ME_TITLE = "This wasn't me";
export const NOT_ME_CONFIRM_HEADING = "Remove a 2-step method you didn't add";
export const NOT_ME_REMOVE_BUTTON = 'Remove it and sign out everywhere';
export const NOT_ME_SIGN_OUT_BUTTON = 'Sign out everywhere';
export const NOT_ME_KEEP =
  'If you added it yourself, close this page: nothing changes until you select the button.';
export const NOT_ME_DONE_HEADING = 'Now reset your password';
export const NOT_ME_DONE_NEXT =
  'Someone else may know your password. Reset it now, then sign in and check 2-step verification on the Security page.';
export const NOT_ME_RESET_LINK = 'Reset your password';
export const NOT_ME_GONE_HEADING = 'This link can no longer be used';
export const NOT_ME_GONE_TEXT =
  'A "This wasn\'t me" link works once, for 24 hours. If you still see a 2-step method you didn\'t add, reset your password with "Forgot password?", then sign in and remove the method on the Security page.';
export const NOT_ME_FROM_ANOTHER_SITE =
  'This form was sent from another site. Open the link in your email again.';
export const NOT_ME_UNAVAILABLE = 'This is not possible right now. Try again in a moment.';

/** What the confirmation will do, for a method still there or one already gone. */
export function notMeConfirmText(name: string, addedAt: number, present: boolean): string {
  const added = formatUtc(addedAt);
  return present
    ? `This removes ${name}, added on ${added}, from 2-step verification of your account, and signs out every browser and device signed in to it. You don't need to sign in.`
    : `${name}, added on ${added}, was already removed from your account. This signs out every browser and device signed in to it. You don't need to sign in.`;
}

/** What the confirmation did. */
export function notMeDoneText(removed: string | undefined): string {
  return removed
    ? `${removed} was removed, and every browser and device was signed out of your account.`
    : 'Every browser and device was signed out of your account.';
}

export function notMeTooManyRequests(seconds: number): string {
  return `Too many requests from your network. Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
}

const title = (heading: string) => `${heading} · My Profile`;

/** The link's page: what will happen, and the form whose post (the token in its body) does it. */
export function notMeConfirmPage(
  action: string,
  token: string,
  view: { name: string; addedAt: number; present: boolean },
): string {
  return page(
    title(NOT_ME_TITLE),
    `<h1>${NOT_ME_CONFIRM_HEADING}</h1>
<p>${escapeHtml(notMeConfirmText(view.name, view.addedAt, view.present))}</p>
<p>Then reset your password: someone else may know it.</p>
<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="token" value="${escapeHtml(token)}">
<button type="submit">${view.present ? NOT_ME_REMOVE_BUTTON : NOT_ME_SIGN_OUT_BUTTON}</button>
</form>
<p class="muted">${escapeHtml(NOT_ME_KEEP)}</p>`,
  );
}

/** After the confirmation: done, and the way to reset the password. */
export function notMeDonePage(resetUrl: string, removed: string | undefined): string {
  return page(
    title(NOT_ME_DONE_HEADING),
    `<h1>${NOT_ME_DONE_HEADING}</h1>
<p role="status">${escapeHtml(notMeDoneText(removed))}</p>
<p>${escapeHtml(NOT_ME_DONE_NEXT)}</p>
<p><a href="${escapeHtml(resetUrl)}">${NOT_ME_RESET_LINK}</a></p>`,
  );
}

/** A used, expired or unknown link (or a refusal): the message, and the way to reset the password. */
export function notMeProblemPage(resetUrl: string, heading: string, message: string): string {
  return page(
    title(heading),
    `<h1>${escapeHtml(heading)}</h1>
<p role="alert">${escapeHtml(message)}</p>
<p><a href="${escapeHtml(resetUrl)}">${NOT_ME_RESET_LINK}</a></p>`,
  );
}
