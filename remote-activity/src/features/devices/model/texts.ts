/** The Devices section's texts (not in the spec; in its voice). docs/texts.md lists them. */
export const DEVICES_TEXTS = {
  title: 'Devices',
  intro: 'The browsers and devices signed in to your account now.',
  loading: 'Loading your devices',
  listLabel: 'Your devices',
  thisDevice: 'This device',
  signedIn: (when: string) => `Signed in ${when}`,
  lastActive: (when: string) => `Last active ${when}`,
  noOthers: 'You are not signed in on any other device.',
  signOut: 'Sign out',
  signOutNamed: (name: string) => `Sign out ${name}`,
  signOutOthers: 'Sign out of all other devices',
  othersTitle: 'Sign out of all other devices?',
  othersText:
    'Every other browser and device signed in to your account will be signed out. This device stays signed in.',
  everywhere: 'Sign out everywhere',
  everywhereTitle: 'Sign out everywhere?',
  everywhereText:
    'Every browser and device signed in to your account will be signed out, this one included. You will then sign in again.',
  // Okta mode (`reach: 'portal'`): signing out here stops a device using this portal; the organization's sign-in
  // may stay open on it for other apps.
  introPortal: 'The browsers and devices that used this portal with your account in the last 8 days.',
  portalNote:
    "Signing out a device here stops it using this portal at once. Your organization's sign-in may stay open on it for other apps: to end it there too, sign out everywhere.",
  othersTextPortal:
    "Every other browser and device will be signed out of this portal. Your organization's sign-in may stay open on them for other apps. This device stays signed in.",
  signedOutOnePortal: (name: string) => `${name} was signed out of this portal.`,
  signedOutOthersPortal: 'Your other devices were signed out of this portal.',
  cancel: 'Cancel',
  signedOutOne: (name: string) => `${name} was signed out.`,
  signedOutOthers: 'Your other devices were signed out.',
  signedOutEverywhere: 'You were signed out everywhere. Sign in again to go on.',
  stepUpTitle: '2-step verification',
  stepUpIntro: "Your account uses 2-step verification: verify it's you before you sign out a device.",
  loadingStepUp: 'Loading the verification',
  tryAgain: 'Try again',
  // A federated account (Okta mode) whose sign-in is older than 5 minutes: the server's text, then this button.
  signInAgain: 'Sign in again',
  signInAgainFailed: 'The sign-in service could not be reached. Please try again.',
} as const;
