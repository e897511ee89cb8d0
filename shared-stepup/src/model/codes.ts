import { formatRecoveryCode, normalizeRecoveryCode, STEP_UP_CODE_MAX, STEP_UP_CODE_MIN } from 'shared-auth';
import type { CallFailure } from 'shared-auth/async';

/** What a code screen asks for: a factor's code, or one of the holder's recovery codes. */
export type StepUpCodeKind = 'googleAuth' | 'email' | 'recoveryCode';

/**
 * Email codes are trimmed of spaces (spec section 5); authenticator codes are taken as typed. A recovery code is
 * taken with or without its dash, in any case, spaces trimmed, and sent as `XXXXX-XXXXX` (the server decides).
 */
export function normaliseStepUpCode(kind: StepUpCodeKind, code: string): string {
  if (kind === 'recoveryCode') {
    const normalized = normalizeRecoveryCode(code);
    return normalized ? formatRecoveryCode(normalized) : code.trim();
  }
  return kind === 'email' ? code.trim() : code;
}

/** Verify is enabled only for codes of 1 to 10 characters; for a recovery code, only for one of its shape. */
export function canVerifyStepUpCode(kind: StepUpCodeKind, code: string): boolean {
  if (kind === 'recoveryCode') return normalizeRecoveryCode(code) !== undefined;
  const length = normaliseStepUpCode(kind, code).length;
  return length >= STEP_UP_CODE_MIN && length <= STEP_UP_CODE_MAX;
}

export const INVALID_CODE_MESSAGES = {
  googleAuth: 'Invalid verification code',
  email: 'Invalid authentication code',
  // Not in the spec: a used code is refused like a wrong one.
  recoveryCode: 'Invalid recovery code. Each code works once.',
} as const satisfies Record<StepUpCodeKind, string>;

/**
 * What the code form says when Verify fails: the spec's wrong-code text only for a wrong code; the server's wait
 * for too many tries; otherwise that the code could not be checked, so nobody retypes a right code.
 */
export function verifyFailureMessage(factor: StepUpCodeKind, failure: CallFailure): string {
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
