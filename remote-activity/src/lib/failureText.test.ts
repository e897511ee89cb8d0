import { ApiError } from 'shared-auth';
import { failureText, hasCode, UNEXPECTED_ERROR } from './failureText.js';

describe('failureText', () => {
  it("says a refusal's own text (a 4xx, a wait, a step-up refusal)", () => {
    expect(failureText(new ApiError('No such session.', 404, 'not_found'))).toBe('No such session.');
    expect(failureText(new ApiError('Try again in 2 minutes.', 429, 'rate_limited'))).toBe(
      'Try again in 2 minutes.',
    );
    expect(failureText(new ApiError('Verify first.', 403, 'step_up_required'))).toBe('Verify first.');
  });

  it('says the text of a service the account service depends on being down', () => {
    expect(failureText(new ApiError('Okta did not answer.', 502, 'upstream_failed'))).toBe(
      'Okta did not answer.',
    );
    expect(failureText(new ApiError('Busy, try in a minute.', 503, 'storage_unavailable'))).toBe(
      'Busy, try in a minute.',
    );
  });

  it('says the generic error for anything else: a 500, no answer, a bug', () => {
    expect(failureText(new ApiError('TypeError at line 3', 500, 'internal_error'))).toBe(UNEXPECTED_ERROR);
    expect(failureText(new ApiError('Failed to fetch', 0))).toBe(UNEXPECTED_ERROR);
    expect(failureText(new Error('undefined is not a function'))).toBe(UNEXPECTED_ERROR);
    expect(failureText(new ApiError('', 400, 'invalid_request'))).toBe(UNEXPECTED_ERROR);
  });

  it('hasCode reads the refusal code only', () => {
    expect(hasCode(new ApiError('x', 404, 'not_found'), 'not_found')).toBe(true);
    expect(hasCode(new ApiError('not_found', 404), 'not_found')).toBe(false);
    expect(hasCode(new Error('not_found'), 'not_found')).toBe(false);
  });
});
