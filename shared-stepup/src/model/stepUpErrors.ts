import { isApiError, isStepUpRequiredError, type ApiErrorCode } from 'shared-auth';

/**
 * The contract's code (API_ERROR_CODES.stepUpRequired), checked against it by type only: shared-auth comes from
 * the shell at run time, and a shell built before the codes existed has no API_ERROR_CODES to read.
 */
const STEP_UP_REQUIRED_CODE: ApiErrorCode = 'step_up_required';

/**
 * A refusal that asks for step-up verification first (403, code 'step_up_required'): the page shows the step-up
 * screens instead of an error. The text is checked too, for servers from before the code, which send the same
 * 403 with only the text (and for a shell whose shared-auth predates ApiError.code).
 */
export function isStepUpRequired(error: unknown): boolean {
  if (!isApiError(error) || error.status !== 403) return false;
  return error.code === STEP_UP_REQUIRED_CODE || isStepUpRequiredError(error.status, error.message);
}
