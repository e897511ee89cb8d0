import { API_ERROR_CODES, isApiError, isStepUpRequiredError } from 'shared-auth';

/**
 * A refusal that asks for step-up verification first (403, code 'step_up_required'): the page shows the step-up
 * screens instead of an error. The text is checked too, for servers from before the code, which send the same
 * 403 with only the text (and for a shell whose shared-auth predates ApiError.code).
 */
export function isStepUpRequired(error: unknown): boolean {
  if (!isApiError(error) || error.status !== 403) return false;
  return error.code === API_ERROR_CODES.stepUpRequired || isStepUpRequiredError(error.status, error.message);
}
