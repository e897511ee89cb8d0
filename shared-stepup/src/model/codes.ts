import { STEP_UP_CODE_MAX, STEP_UP_CODE_MIN } from 'shared-auth';

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
