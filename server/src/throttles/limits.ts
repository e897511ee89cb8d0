import type { ThrottleLimit } from './throttle.js';

/**
 * Every throttle's limit, in one place. Kept in storage (a restart forgets nothing); each has its own events
 * (`Storage.throttles`).
 */

/**
 * Wrong passwords per user given to a signed-in call (password change and "Confirm it's you"). Stricter than
 * sign-in because the caller already holds a valid access token: this guards against someone at an unlocked,
 * signed-in browser guessing the password. A right password clears the count.
 */
export const PASSWORD_CHANGE_LIMIT: ThrottleLimit = { max: 5, windowMs: 15 * 60 * 1000 };

/**
 * Failed sign-ins per key: the email (keyed hash) for browsers the account does not know, or a device of the
 * account, so strangers' failures that lock an email do not lock out the browsers the holder signed in with.
 */
export const SIGN_IN_LIMIT: ThrottleLimit = { max: 10, windowMs: 15 * 60 * 1000 };

/** Wrong 2-step codes (step-up verify, activate, sign-in) per user, as Okta does. */
export const WRONG_CODE_LIMIT: ThrottleLimit = { max: 5, windowMs: 5 * 60 * 1000 };

/** Email codes: at most one send per user every 30 seconds, the spec's resend countdown. */
export const EMAIL_SEND_LIMIT: ThrottleLimit = { max: 1, windowMs: 30 * 1000 };

/**
 * Password reset requests ("Forgot password?") per typed email, whether or not an account uses it: each may
 * mail a link, so a stranger cannot flood a mailbox. Past it the page says how long to wait (the same for every
 * email, so it tells nothing about accounts).
 */
export const PASSWORD_RESET_REQUEST_LIMIT: ThrottleLimit = { max: 3, windowMs: 60 * 60 * 1000 };
