/**
 * The notices of "This wasn't me" (issue 22): after the holder reported an event of the activity (the in-page
 * call), and after the link of a method-added notice removed that method. Plain text, through the notices' outbox,
 * in the notices' voice (notifications/texts.ts); never a secret.
 */
import { describeBrowser } from '../notifications/browser.js';
import { formatUtc, type Notice } from '../notifications/texts.js';

const SIGNATURE = 'My Profile, your F5 account. This notice was sent automatically; replies are not read.';

export const REPORTED_NOT_ME_SUBJECT = 'Every device was signed out of your F5 account after a report';

/** Where and when, as every notice says it. */
function contextLines(at: number, userAgent: string | undefined): string[] {
  return [`When: ${formatUtc(at)}`, `Browser: ${describeBrowser(userAgent)}`];
}

/** The in-page report: every session ended; the holder changes the password next. */
export function reportedNotMeMail(portalUrl: string, at: number, userAgent: string | undefined): Notice {
  return {
    subject: REPORTED_NOT_ME_SUBJECT,
    text: [
      'Hello,',
      '',
      `An event in the activity of your F5 account was reported with "This wasn't me" in My Profile. Every browser and device signed in to your account was signed out, the one used to report it too.`,
      '',
      ...contextLines(at, userAgent),
      '',
      'Someone else may know your password:',
      `- change your password now on the Password page of My Profile: ${portalUrl}/password`,
      `- check 2-step verification on the Security page: ${portalUrl}/security`,
      "- contact your support team, at once if you didn't report this or can no longer sign in.",
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/** The 2-step method a link removed, as the mail and the page name it. */
export interface RemovedMethodName {
  /** "Google Authenticator", "The passkey "MacBook"". */
  name: string;
  subject: string;
}

/** The link of a method-added notice was used: what it removed (if anything was left) and the sign-out. */
export function notMeLinkUsedMail(
  removed: RemovedMethodName | undefined,
  resetUrl: string,
  at: number,
  userAgent: string | undefined,
): Notice {
  const what = removed
    ? `${removed.name} was removed from 2-step verification of your F5 account with the "This wasn't me" link of the mail that said it was added. Every browser and device signed in to your account was signed out.`
    : `The "This wasn't me" link of a mail about a 2-step method added to your F5 account was used. The method had already been removed, so nothing else was removed. Every browser and device signed in to your account was signed out.`;
  return {
    subject: removed?.subject ?? 'Every device was signed out of your F5 account',
    text: [
      'Hello,',
      '',
      what,
      '',
      ...contextLines(at, userAgent),
      '',
      'Someone else may know your password:',
      `- reset it now with "Forgot password?": ${resetUrl}`,
      '- then sign in and check 2-step verification on the Security page of My Profile.',
      "- contact your support team, at once if you didn't use the link.",
      '',
      SIGNATURE,
    ].join('\n'),
  };
}
