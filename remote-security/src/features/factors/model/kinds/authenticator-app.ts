/** The authenticator app (Google Authenticator): set up by scanning a QR code and entering the app's code. */
import type { FactorKindDescriptor } from './descriptor.js';

export const authenticatorApp = {
  name: 'googleAuth',
  listedBeforeEnrolment: true,
  // The code comes from the app in the set-up form: nothing is sent, a correct code turns the factor on.
  enrolmentStart: 'activatedAtOnce',
  lastFactorCounts: 'tracked',
  entryDetail: () => ({}),
  texts: {
    toasts: {
      turnedOn: 'Verification with Authenticator app is turned on.',
      turnedOff: 'Verification with Authenticator app is turned off.',
      removed: 'Google Authenticator was removed.',
      activated: 'Google Authenticator is set up.',
    },
    dialogs: {
      turnOff: {
        title: 'Turn off verification with Authenticator app?',
        text: 'Your Authenticator app option will not be removed. You can turn it back on at any time.',
      },
      remove: {
        title: 'Remove your Google Authenticator account?',
        text: 'This permanently removes Google Authenticator from 2-step verification. To use it again, you will need to set it up again.',
      },
    },
    turnOffRemovesText:
      "Turning it off removes your Authenticator app from your account in your organisation's sign-in. You can set it up again at any time.",
  },
} as const satisfies FactorKindDescriptor<'googleAuth'>;
