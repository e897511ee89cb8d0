/** The recovery-codes section's texts (issue 20; in the spec's voice). */
export const RECOVERY_CODES_TEXTS = {
  title: 'Recovery codes',
  intro:
    "If you lose your phone or can't get to your email, a recovery code lets you sign in. Each code works once.",
  generate: 'Generate recovery codes',
  generateNew: 'Generate new codes',
  noActiveFactor: 'Turn on a 2-step method first',
  unavailable:
    "Recovery codes are not available with your organization's sign-in. Ask your administrator how to get back in if you lose your phone.",
  confirmNewTitle: 'Generate new codes?',
  confirmNewText: 'Your old codes will stop working.',
  // The factors feature's generic failure text (spec section 2); features do not import each other.
  unexpectedError: 'An Unexpected Error happened...',
} as const;
