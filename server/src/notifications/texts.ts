import { FACTOR_LABELS, RECOVERY_CODE_COUNT, RECOVERY_CODES_LOW } from 'shared-auth/contract';
import { describeBrowser } from './browser.js';
import type { SessionSignOutScope } from 'shared-auth/contract';
import type { AccountEvent, EventContext, RecoveryCodeUse } from './types.js';

export interface Notice {
  subject: string;
  text: string;
}

const UTC_DATE_TIME = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  dateStyle: 'full',
  timeStyle: 'short',
});

/** "Monday, 23 November 2026 at 14:05 UTC": readable wherever the reader lives. */
export function formatUtc(ms: number): string {
  return `${UTC_DATE_TIME.format(new Date(ms))} UTC`;
}

/**
 * The warning when RECOVERY_CODES_LOW or fewer recovery codes are left (issue 20's words; the count made
 * singular for one, and none said as such).
 */
export function fewRecoveryCodesLeft(left: number): string {
  const count = left === 0 ? 'No recovery codes' : `Only ${left} recovery code${left === 1 ? '' : 's'}`;
  return `${count} left. Generate new ones so you don't get locked out.`;
}

/** What a recovery code replaced, by its use. */
const RECOVERY_CODE_USES: Record<RecoveryCodeUse, string> = {
  'sign-in': 'A recovery code was used instead of a verification code to sign in to your F5 account.',
  'step-up':
    'A recovery code was used instead of a verification code in My Profile, to manage the security settings or the password of your F5 account.',
  'password-reset':
    'A recovery code was used instead of a verification code to reset the password of your F5 account.',
};

/** The notice of sessions signed out from the Devices list, by how many it reached. */
const SESSIONS_SIGNED_OUT: Record<SessionSignOutScope, { subject: string; what: string }> = {
  one: {
    subject: 'A device was signed out of your F5 account',
    what: 'A browser or device signed in to your F5 account was signed out in My Profile. To use your account there again, you have to sign in again.',
  },
  others: {
    subject: 'Your other devices were signed out of your F5 account',
    what: 'Every browser and device signed in to your F5 account was signed out in My Profile, except the one used to do it.',
  },
  everywhere: {
    subject: 'Every device was signed out of your F5 account',
    what: 'Every browser and device signed in to your F5 account was signed out in My Profile, the one used to do it too.',
  },
};

/**
 * Okta mode's sign-out of one or the others: only their use of this portal ended (their tokens are refused here);
 * the organization's sign-in may stay open on them for other apps, as the Devices page says.
 */
const PORTAL_SESSIONS_SIGNED_OUT: Record<'one' | 'others', { subject: string; what: string }> = {
  one: {
    subject: 'A device was signed out of My Profile',
    what: "A browser or device that used My Profile with your F5 account was signed out of this portal. Your organization's sign-in may stay open on it for other apps. To use My Profile there again, you have to sign in again.",
  },
  others: {
    subject: 'Your other devices were signed out of My Profile',
    what: "Every browser and device that used My Profile with your F5 account was signed out of this portal, except the one used to do it. Your organization's sign-in may stay open on them for other apps.",
  },
};

interface Parts {
  subject: string;
  what: string;
  /** Locks are caused by someone else's attempts, changes by a signed-in browser. */
  browserLabel: string;
  ifNotYou: string;
}

function partsOf(event: AccountEvent): Parts {
  const change = {
    browserLabel: 'Browser',
    ifNotYou: "If this wasn't you, someone else may be signed in to your account:",
  };
  switch (event.type) {
    case 'password-changed':
      return {
        ...change,
        subject: 'Your F5 account password was changed',
        what: 'The password of your F5 account was changed on the Password page of My Profile.',
      };
    case 'password-reset':
      return {
        ...change,
        subject: 'Your F5 account password was reset',
        what: [
          'The password of your F5 account was reset with a link sent to this address ("Forgot password?" on the sign-in page). Every browser and device signed in to your account was signed out.',
          ...(event.emailOnly2Step
            ? [
                'No verification code was asked: your only 2-step method is email, and the link came to this address.',
              ]
            : []),
        ].join(' '),
      };
    case 'factor-activated': {
      const name = FACTOR_LABELS[event.factor];
      return {
        ...change,
        subject: `${name} is now on for your F5 account`,
        what: `${name} was set up and turned on for 2-step verification of your F5 account. Signing in now asks for a verification code after the password.`,
      };
    }
    case 'factor-turned-on': {
      const name = FACTOR_LABELS[event.factor];
      return {
        ...change,
        subject: `${name} was turned on again for your F5 account`,
        what: `${name} was turned on again for 2-step verification of your F5 account.`,
      };
    }
    case 'factor-turned-off': {
      const name = FACTOR_LABELS[event.factor];
      return {
        ...change,
        subject: `${name} was turned off for your F5 account`,
        what: `${name} was turned off for 2-step verification of your F5 account: signing in no longer accepts its codes.`,
      };
    }
    case 'factor-removed': {
      const name = FACTOR_LABELS[event.factor];
      return {
        ...change,
        subject: `${name} was removed from your F5 account`,
        what: `${name} was removed from 2-step verification of your F5 account. To use it again, it has to be set up again.`,
      };
    }
    case 'recovery-codes-generated':
      return {
        ...change,
        subject: 'New recovery codes were generated for your F5 account',
        what: `A new set of ${RECOVERY_CODE_COUNT} recovery codes was generated for 2-step verification of your F5 account on the Security page. Recovery codes generated before no longer work.`,
      };
    case 'recovery-code-used': {
      const left = `It cannot be used again. Recovery codes left: ${event.left}.`;
      return {
        ...change,
        subject: 'A recovery code was used for your F5 account',
        what: [
          RECOVERY_CODE_USES[event.use],
          left,
          ...(event.left <= RECOVERY_CODES_LOW ? [fewRecoveryCodesLeft(event.left)] : []),
        ].join(' '),
      };
    }
    case 'recovery-codes-removed':
      return {
        ...change,
        subject: 'The recovery codes of your F5 account were removed',
        what: 'The recovery codes of your F5 account were removed, because 2-step verification is no longer turned on for it: they no longer work. Once 2-step verification is on again, you can generate new ones on the Security page.',
      };
    case 'passkey-added':
      return {
        ...change,
        subject: 'A passkey was added to your F5 account',
        what: `A passkey ("${event.name}") was added to 2-step verification of your F5 account on the Security page. It can now be used to confirm it's you.`,
      };
    case 'passkey-removed':
      return {
        ...change,
        subject: 'A passkey was removed from your F5 account',
        what: `The passkey "${event.name}" was removed from 2-step verification of your F5 account: it can no longer be used to confirm it's you.`,
      };
    case 'passkey-cloned':
      return {
        ...change,
        subject: 'A passkey of your F5 account was blocked',
        what: `The passkey "${event.name}" of your F5 account answered in a way that suggests it was copied to another device, so it no longer works. Remove it on the Security page; if it is yours, add it again.`,
      };
    case 'sessions-signed-out':
      return {
        ...change,
        ...(event.reach === 'portal' && event.scope !== 'everywhere'
          ? PORTAL_SESSIONS_SIGNED_OUT[event.scope]
          : SESSIONS_SIGNED_OUT[event.scope]),
      };
    case 'account-locked': {
      const until = formatUtc(event.until);
      const locked = {
        browserLabel: 'Last attempt from',
        ifNotYou: "If these attempts weren't yours, someone may be trying to get into your account:",
      };
      switch (event.reason) {
        case 'sign-in':
          return {
            ...locked,
            subject: 'Sign-in to your F5 account is paused after failed attempts',
            what: `There were too many failed attempts to sign in to your F5 account with a wrong password. Signing in with your email is paused until ${until}, except in browsers where you signed in before.`,
          };
        case 'password':
          return {
            ...locked,
            subject: 'Password changes on your F5 account are paused after wrong passwords',
            what: `Your password was entered wrongly too many times in My Profile (to change it on the Password page, or to confirm it's you on the Security page). Both are paused until ${until}.`,
          };
        case 'verification-code':
          return {
            ...locked,
            subject: 'Verification codes for your F5 account are paused after wrong codes',
            what: `Too many wrong verification codes were entered for your F5 account. Codes are refused until ${until}.`,
          };
      }
    }
  }
}

/** The subject of an event's notice: one per kind of event (the lock's end time is in the text only). */
export function subjectOf(event: AccountEvent): string {
  return partsOf(event).subject;
}

/** The lines of a method-added notice's "This wasn't me" link (devices/not-me-links.ts says what it does). */
export function notMeLinkLines(link: string): string[] {
  return [
    "If you didn't add this, someone else may know your password. This link removes exactly this method and signs out every browser and device, with no need to sign in. It works once, for 24 hours:",
    link,
    '',
  ];
}

/**
 * The notice mailed to the account holder: what happened, when, from which browser, and what to do if it wasn't
 * them. Plain text, and never a secret, code or token: only the event, the time and the browser's name, and for a
 * method added its single-use "This wasn't me" link (the outbox keeps such a notice sealed).
 */
export function composeNotice(event: AccountEvent, context: EventContext, portalUrl: string): Notice {
  const parts = partsOf(event);
  return {
    subject: parts.subject,
    text: [
      'Hello,',
      '',
      parts.what,
      '',
      `When: ${formatUtc(context.at)}`,
      `${parts.browserLabel}: ${describeBrowser(context.userAgent)}`,
      '',
      "If this was you, you don't need to do anything.",
      '',
      ...(context.notMeLink === undefined ? [] : notMeLinkLines(context.notMeLink)),
      parts.ifNotYou,
      `- change your password now on the Password page of My Profile: ${portalUrl}/password`,
      `- check 2-step verification on the Security page: ${portalUrl}/security`,
      '- contact your support team, at once if you can no longer sign in.',
      '',
      'My Profile, your F5 account. This notice was sent automatically; replies are not read.',
    ].join('\n'),
  };
}
