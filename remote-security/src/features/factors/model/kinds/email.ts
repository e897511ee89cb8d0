/** Verification by email: a code mailed to the account's address, which the factor shows (masked) once on. */
import type { AccountFacts, FactorKindDescriptor } from './descriptor.js';

export const email = {
  name: 'email',
  // The data has no email entry until the address is verified (spec section 3).
  listedBeforeEnrolment: false,
  enrolmentStart: 'codeSentFirst',
  lastFactorCounts: 'trackedOrRecomputed',
  entryDetail: ({ maskedEmail }: AccountFacts) => ({ maskedEmail }),
  texts: {
    toasts: {
      turnedOn: 'Verification with email is turned on.',
      turnedOff: 'Verification with email is turned off.',
      removed: 'Your email was removed from 2-step verification.',
      activated: 'Verification with email is set up.',
    },
    dialogs: {
      turnOff: {
        title: 'Turn off verification with email?',
        text: 'Verification codes by email will no longer be available when you sign in. Your Authenticator app option stays, and you can turn email back on at any time.',
      },
      remove: {
        title: 'Remove your email from 2-step verification?',
        text: 'You will no longer receive verification codes by email when you sign in. You can add your email again at any time.',
      },
    },
    turnOffRemovesText:
      "Verification codes by email will no longer be available when you sign in: turning it off removes email from your account in your organisation's sign-in. Your Authenticator app option stays, and you can set up email again at any time.",
  },
} as const satisfies FactorKindDescriptor<'email'>;
