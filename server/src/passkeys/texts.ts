/** The passkeys' refusals as the holder reads them (the `error` of 400 passkey_refused and the 409s). */
import { STEP_UP_REQUIRED_ERROR } from 'shared-auth/contract';

export const PASSKEYS_UNAVAILABLE_ERROR =
  "Passkeys are not available here yet: your organization's sign-in manages your security keys.";
export const PASSKEY_CHALLENGE_ERROR = 'This passkey request has expired or was already used. Try again.';
export const PASSKEY_ANSWER_ERROR = 'Your passkey could not be verified. Try again.';
export const PASSKEY_ALREADY_REGISTERED_ERROR =
  'This passkey is already registered. Choose another passkey or security key.';
export const PASSKEY_UNKNOWN_ERROR = 'This passkey is not registered to your account.';
export const PASSKEY_USER_VERIFICATION_ERROR =
  'Your passkey did not confirm it was you (no PIN, fingerprint or face check). Try again and unlock it when asked.';
export const PASSKEY_CLONED_ERROR =
  'This passkey was blocked because it may have been copied. Remove it on the Security page and use another method.';
export const PASSKEYS_MAX_ERROR = (max: number) =>
  `You already have ${max} passkeys, the most an account can hold. Remove one before adding another.`;
export const NO_PASSKEY_ERROR = 'No passkey is set up for this account.';
export const PASSKEY_NOT_FOUND_ERROR = 'No such passkey on your account.';
export const LAST_METHOD_ERROR =
  'You cannot remove your only 2-step method. Set up another method (an authenticator app, email or another passkey) first.';
export const PASSKEY_NAME_CHARACTERS_ERROR =
  'The name must not contain line breaks, control characters or invisible characters';

// ---- Okta mode ----------------------------------------------------------------------------------------------
export const PASSKEY_SIGN_IN_AGAIN_ERROR = `${STEP_UP_REQUIRED_ERROR}: your passkeys are checked by your organization's sign-in. Sign in again, then make this change within 5 minutes.`;
export const PASSKEY_RENAME_UNAVAILABLE_ERROR =
  "Your organization's sign-in service does not let you rename passkeys.";
export const PASSKEY_HOSTED_ENROLMENT_ERROR =
  "Passkeys are added on your organization's sign-in page: choose Add a passkey on the Security page to go there.";
export const PASSKEY_STEP_UP_UNAVAILABLE_ERROR =
  "Your organization's passkeys cannot be checked on this site. Verify with another method.";
export const PASSKEY_ORG_REFUSED_ERROR =
  "Your organization's sign-in service does not let you add a passkey. Contact your administrator.";
export const PASSKEY_ORG_RP_MISMATCH_ERROR =
  "Passkeys cannot be added here: your organization's sign-in service is set up for passkeys on another site. Contact your administrator.";
