/** The passkeys' refusals as the holder reads them (the `error` of 400 passkey_refused and the 409s). */

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
