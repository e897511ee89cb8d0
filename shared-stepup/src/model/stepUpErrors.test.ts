import { ApiError } from 'shared-auth';
import { isStepUpRequired } from './stepUpErrors.js';

describe('isStepUpRequired', () => {
  it("is the server's 403 with the step_up_required code, whatever its text", () => {
    expect(
      isStepUpRequired(
        new ApiError('Verify with one of your 2-step factors first.', 403, 'step_up_required'),
      ),
    ).toBe(true);
  });

  it('is the same 403 from a server that sends only the text', () => {
    expect(isStepUpRequired(new ApiError('Step-up verification required: verify first', 403))).toBe(true);
  });

  it('is nothing else', () => {
    expect(
      isStepUpRequired(
        new ApiError("Confirm it's you: enter your password.", 403, 'reauthentication_required'),
      ),
    ).toBe(false);
    expect(isStepUpRequired(new ApiError('Step-up verification required', 500))).toBe(false);
    expect(isStepUpRequired(new ApiError('Federated users cannot change their password here.', 403))).toBe(
      false,
    );
    expect(isStepUpRequired(new Error('Step-up verification required'))).toBe(false);
    expect(isStepUpRequired(undefined)).toBe(false);
  });
});
