import { STEP_UP_CODE_MAX, STEP_UP_CODE_MIN } from 'shared-auth';
import type { CallFailure } from 'shared-auth/async';

/** Email codes are trimmed of spaces (spec section 5); authenticator codes are taken as typed. */
export function normaliseStepUpCode(factor: 'googleAuth' | 'email', code: string): string {
  return factor === 'email' ? code.trim() : code;
}

/** Verify is enabled only for codes of 1 to 10 characters. */
export function canVerifyStepUpCode(factor: 'googleAuth' | 'email', code: string): boolean {
  const length = normaliseStepUpCode(factor, code).length;
  return length >= STEP_UP_CODE_MIN && length <= STEP_UP_CODE_MAX;
}

export const INVALID_CODE_MESSAGES = {
  googleAuth: 'Invalid verification code',
  email: 'Invalid authentication code',
} as const;

/**
 * What the code form says when Verify fails: the spec's wrong-code text only for a wrong code; the server's wait
 * for too many tries; otherwise that the code could not be checked, so nobody retypes a right code.
 */
export function verifyFailureMessage(factor: 'googleAuth' | 'email', failure: CallFailure): string {
  switch (failure.kind) {
    case 'invalid_code':
      return INVALID_CODE_MESSAGES[factor];
    case 'throttled':
      return failure.message;
    case 'refused':
    case 'step_up_required':
    case 'reauthentication_required':
      return `The code could not be checked: ${failure.message}`;
    case 'failed':
      return failure.status === 0 ? CODE_NOT_CHECKED.unreachable : CODE_NOT_CHECKED.serverError;
  }
}

export const CODE_NOT_CHECKED = {
  unreachable: 'The code could not be checked: no answer from the account service. Try again.',
  serverError: 'The code could not be checked: the account service had a problem. Try again in a moment.',
} as const;
