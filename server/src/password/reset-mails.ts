/**
 * The mails of "Forgot password" (issue 20): the link to choose a new password, and, for a federated account,
 * where its password is reset instead. Plain text, through the notices' outbox. The notice after a reset is an
 * account event (notifications/texts.ts, 'password-reset').
 */
import type { Notice } from '../notifications/texts.js';

export const RESET_MAIL_SUBJECT = 'Reset your password';

const SIGNATURE = 'My Profile, your F5 account. This message was sent automatically; replies are not read.';
const NOT_YOU =
  "If you did not ask for this, you don't need to do anything: your password stays as it is. Someone may have typed your address by mistake. If it happens again, contact your support team.";

/** Both mails: who asked and where, the mail's own lines, then what to do if it was not you. */
function resetMail(lines: readonly string[]): Notice {
  return {
    subject: RESET_MAIL_SUBJECT,
    text: [
      'Hello,',
      '',
      'Someone asked to reset the password of your F5 account on the sign-in page of My Profile.',
      ...lines,
      '',
      NOT_YOU,
      '',
      SIGNATURE,
    ].join('\n'),
  };
}

/** The link mail: the link works once, for `minutes`, and only the newest one works. */
export function resetLinkMail(link: string, minutes: number): Notice {
  return resetMail([
    'To choose a new password, open this link:',
    '',
    link,
    '',
    `The link works once, for ${minutes} minutes. If you asked more than once, only the newest link works.`,
  ]);
}

/** A federated account has no password here: its company's identity provider resets it. */
export function federatedResetMail(): Notice {
  return resetMail([
    "Your account signs in through your company (single sign-on), so its password is not kept here: reset it with your company's identity provider instead, or ask your company's IT support.",
  ]);
}
