import type { FactorKind } from '../model/enrolment.js';

/** Confirmation dialogs (spec section 4): titles as the spec gives them. */
export const DIALOGS: Record<'turnOff' | 'remove', Record<FactorKind, { title: string; text: string }>> = {
  turnOff: {
    googleAuth: {
      title: 'Turn off verification with Authenticator app?',
      text: 'Your Authenticator app option will not be removed. You can turn it back on at any time.',
    },
    email: {
      title: 'Turn off verification with email?',
      text: 'Verification codes by email will no longer be available when you sign in. Your Authenticator app option stays, and you can turn email back on at any time.',
    },
  },
  remove: {
    googleAuth: {
      title: 'Remove your Google Authenticator account?',
      text: 'This permanently removes Google Authenticator from 2-step verification. To use it again, you will need to set it up again.',
    },
    email: {
      title: 'Remove your email from 2-step verification?',
      text: 'You will no longer receive verification codes by email when you sign in. You can add your email again at any time.',
    },
  },
};

/**
 * The turn-off dialog's text where turning off removes the factor (the server says `turnOff: 'removes'`: Okta mode,
 * whose sign-in has no "off" for one factor). The spec's title stays; its text would not be true there.
 */
export const TURN_OFF_REMOVES_TEXTS: Record<FactorKind, string> = {
  googleAuth:
    "Turning it off removes your Authenticator app from your account in your organisation's sign-in. You can set it up again at any time.",
  email:
    "Verification codes by email will no longer be available when you sign in: turning it off removes email from your account in your organisation's sign-in. Your Authenticator app option stays, and you can set up email again at any time.",
};

export const UNEXPECTED_ERROR = 'An Unexpected Error happened...';

export const APP_STORE_URL = 'https://apps.apple.com/app/google-authenticator/id388497605';
export const PLAY_STORE_URL =
  'https://play.google.com/store/apps/details?id=com.google.android.apps.authenticator2';
