/**
 * What a section says when a call failed: the server's own text where it is written for the holder (a refusal, a
 * wait, a service the account service depends on being down), else the spec's generic error. Both features show
 * their failures this way.
 */
import { API_ERROR_CODES, isApiError } from 'shared-auth';
import { classifyFailure } from 'shared-auth/async';

/** The spec's generic failure text (spec section 2). */
export const UNEXPECTED_ERROR = 'An Unexpected Error happened...';

/** 5xx answers whose `error` text tells the holder what is wrong (the others are the generic error). */
const SAID_FAILURES: ReadonlySet<string> = new Set([
  API_ERROR_CODES.upstreamFailed,
  API_ERROR_CODES.serviceUnavailable,
  API_ERROR_CODES.storageUnavailable,
]);

export function failureText(error: unknown): string {
  const failure = classifyFailure(error);
  switch (failure.kind) {
    case 'throttled':
    case 'refused':
    case 'invalid_code':
    case 'step_up_required':
    case 'reauthentication_required':
      return failure.message || UNEXPECTED_ERROR;
    case 'failed':
      return isApiError(error) && error.code !== undefined && SAID_FAILURES.has(error.code) && failure.message
        ? failure.message
        : UNEXPECTED_ERROR;
  }
}

/** The refusal carries this code (API_ERROR_CODES). */
export function hasCode(error: unknown, code: string): boolean {
  return isApiError(error) && error.code === code;
}
