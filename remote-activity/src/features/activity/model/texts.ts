/** The Activity section's texts (not in the spec; in its voice). docs/texts.md lists them. */
export const ACTIVITY_TEXTS = {
  title: 'Recent activity',
  intro: 'What happened to your account in the last 90 days, newest first.',
  loading: 'Loading your activity',
  listLabel: 'Your activity',
  empty: 'No activity in the last 90 days.',
  showMore: 'Show more',
  tryAgain: 'Try again',
  notMe: "This wasn't me",
  notMeNamed: (sentence: string, when: string) => `This wasn't me: ${sentence}, ${when}`,
  notMeTitle: "This wasn't you?",
  notMeText:
    'To protect your account, every browser and device signed in to it will be signed out, this one included. You will then sign in again and change your password.',
  notMeConfirm: 'Sign out everywhere',
  cancel: 'Cancel',
  signedOut: 'You were signed out everywhere. Sign in again, then change your password.',
  /** A host that offers no way to sign in again (a mount() without it). */
  signInYourself:
    'You were signed out everywhere. Sign in again, then change your password on the Password page.',
} as const;
