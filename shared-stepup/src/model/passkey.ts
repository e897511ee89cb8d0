import { API_ERROR_CODES, isApiError } from 'shared-auth';
import { classifyFailure } from 'shared-auth/async';
import { ceremonyFailureOf } from '../webauthn/webauthn.js';

/** The passkey screen's texts (not in the spec; in its voice). */
export const PASSKEY_STEP_UP_TEXTS = {
  select: 'Verify with a passkey',
  title: 'Use your passkey',
  text: 'Use your fingerprint, face or screen lock, or your security key, when your browser asks.',
  button: 'Use passkey',
  unsupported: 'This browser does not support passkeys.',
  cancelled: 'The passkey check was cancelled or timed out. Try again.',
  unverified: 'Your passkey could not be verified.',
  unreachable: 'The passkey could not be checked: no answer from the account service. Try again.',
  serverError: 'The passkey could not be checked: the account service had a problem. Try again in a moment.',
} as const;

/**
 * What the passkey screen says when the check fails: the browser's cancel or time-out; a passkey the server (400
 * passkey_refused) or the authenticator (no user verification) did not accept; the server's wait for too many
 * tries (429, as the code screens show it); any other refusal in the server's words; otherwise that the passkey
 * could not be checked.
 */
export function passkeyFailureMessage(error: unknown): string {
  switch (ceremonyFailureOf(error)) {
    case 'cancelled':
      return PASSKEY_STEP_UP_TEXTS.cancelled;
    case 'unverified':
    case 'already_registered':
    case 'other':
      return PASSKEY_STEP_UP_TEXTS.unverified;
    case undefined:
      break;
  }
  if (isApiError(error) && error.code === API_ERROR_CODES.passkeyRefused)
    return PASSKEY_STEP_UP_TEXTS.unverified;
  const failure = classifyFailure(error);
  switch (failure.kind) {
    case 'throttled':
      return failure.message;
    case 'invalid_code':
    case 'refused':
    case 'step_up_required':
    case 'reauthentication_required':
      return `The passkey could not be checked: ${failure.message}`;
    case 'failed':
      return failure.status === 0 ? PASSKEY_STEP_UP_TEXTS.unreachable : PASSKEY_STEP_UP_TEXTS.serverError;
  }
}
