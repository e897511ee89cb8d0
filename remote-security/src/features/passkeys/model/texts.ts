/** The Passkeys section's texts (not in the spec; in its voice). */
export const PASSKEYS_TEXTS = {
  title: 'Passkeys',
  intro: 'Sign in with your fingerprint, face or screen lock, or a security key, instead of a code.',
  add: 'Add a passkey',
  /** Under Add where the identity provider's own page adds passkeys (hosted enrolment, Okta mode). */
  hostedNote: "You will add your passkey on your organization's sign-in page, then come back here.",
  /** After a verification (step-up, "Confirm it's you", a new sign-in): the ceremony starts on this click. */
  createTitle: 'Create your passkey',
  createText:
    'Select Create passkey, then use your fingerprint, face or screen lock, or your security key, when your browser asks.',
  create: 'Create passkey',
  unsupported: 'This browser does not support passkeys.',
  none: 'You have no passkeys yet.',
  neverUsed: 'Never used',
  synced: 'Synced',
  rename: 'Rename',
  remove: 'Remove',
  nameTitle: 'Name your passkey',
  renameTitle: 'Rename passkey',
  nameLabel: 'Name',
  nameHelp: 'A name helps you tell your passkeys apart, for example "Work laptop".',
  save: 'Save',
  skip: 'Skip',
  removeTitle: 'Remove this passkey?',
  removeText: (name: string) => `You will no longer be able to sign in or verify with "${name}".`,
  addCancelled: 'Adding the passkey was cancelled or timed out. Try again.',
  unverified: 'Your passkey could not be verified.',
  alreadyRegistered: 'This device already has a passkey for your account.',
  added: 'Your passkey is set up.',
  removed: 'The passkey was removed.',
  // The factors feature's generic failure text (spec section 2); features do not import each other.
  unexpectedError: 'An Unexpected Error happened...',
} as const;
