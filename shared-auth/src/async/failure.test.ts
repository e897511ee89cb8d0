import { ApiError } from '../api-client.js';
import { API_ERROR_CODES } from '../contract/errors.js';
import {
  INVALID_CODE_ERROR,
  REAUTHENTICATION_REQUIRED_ERROR,
  STEP_UP_REQUIRED_ERROR,
} from '../contract/stepup.js';
import { classifyFailure, describeWait, isReauthenticationRequired, isStepUpRequired } from './failure.js';

function withRetryAfter(error: ApiError, seconds: number): ApiError {
  return Object.assign(error, { retryAfterSeconds: seconds });
}

describe('classifyFailure', () => {
  it('a 429 keeps the server text, which says how long to wait', () => {
    const error = withRetryAfter(
      new ApiError('Too many wrong codes. Try again in 2 minutes.', 429, API_ERROR_CODES.rateLimited),
      120,
    );
    expect(classifyFailure(error)).toEqual({
      kind: 'throttled',
      message: 'Too many wrong codes. Try again in 2 minutes.',
      retryAfterSeconds: 120,
    });
  });

  it('a 429 without a server text says the Retry-After wait', () => {
    const error = withRetryAfter(new ApiError('The account service answered 429', 429), 45);
    expect(classifyFailure(error)).toMatchObject({
      kind: 'throttled',
      message: 'Too many attempts. Try again in 45 seconds.',
    });
    expect(classifyFailure(new ApiError('The account service answered 429', 429))).toMatchObject({
      message: 'Too many attempts. Wait a moment and try again.',
      retryAfterSeconds: undefined,
    });
  });

  it('a 403 step_up_required, by its code (never its text)', () => {
    expect(classifyFailure(new ApiError('x', 403, API_ERROR_CODES.stepUpRequired)).kind).toBe(
      'step_up_required',
    );
    expect(isStepUpRequired(new ApiError(`${STEP_UP_REQUIRED_ERROR}: verify first`, 403))).toBe(false);
    expect(isStepUpRequired(new ApiError('x', 400, API_ERROR_CODES.stepUpRequired))).toBe(false);
    expect(isStepUpRequired(new Error('Step-up verification required'))).toBe(false);
  });

  it('a 403 reauthentication_required, by its code (never its text)', () => {
    expect(isReauthenticationRequired(new ApiError('x', 403, API_ERROR_CODES.reauthenticationRequired))).toBe(
      true,
    );
    expect(
      isReauthenticationRequired(new ApiError(`${REAUTHENTICATION_REQUIRED_ERROR}: enter it`, 403)),
    ).toBe(false);
    expect(isReauthenticationRequired(new ApiError('x', 400, API_ERROR_CODES.reauthenticationRequired))).toBe(
      false,
    );
    expect(isReauthenticationRequired(new ApiError('Forbidden', 403))).toBe(false);
  });

  it('a reauthentication_required says how to prove it: a new sign-in when the server says so, else the password', () => {
    const code = API_ERROR_CODES.reauthenticationRequired;
    expect(classifyFailure(new ApiError('x', 403, code, undefined, 'sign-in'))).toEqual({
      kind: 'reauthentication_required',
      message: 'x',
      proof: 'sign-in',
    });
    expect(classifyFailure(new ApiError('x', 403, code, undefined, 'password'))).toMatchObject({
      proof: 'password',
    });
    expect(classifyFailure(new ApiError('x', 403, code))).toMatchObject({ proof: 'password' });
  });

  it('a 400 wrong code, by its code (not the spec text); other refusals and failures apart', () => {
    expect(classifyFailure(new ApiError(INVALID_CODE_ERROR, 400)).kind).toBe('refused');
    expect(classifyFailure(new ApiError('Wrong', 400, 'invalid_code')).kind).toBe('invalid_code');
    expect(classifyFailure(new ApiError('Email is not turned on', 409))).toEqual({
      kind: 'refused',
      status: 409,
      message: 'Email is not turned on',
    });
    expect(classifyFailure(new ApiError('Forbidden', 403)).kind).toBe('refused');
    expect(classifyFailure(new ApiError('The account service answered 502', 502)).kind).toBe('failed');
    expect(classifyFailure(new ApiError('The account service could not be reached', 0)).kind).toBe('failed');
    expect(classifyFailure(new TypeError('bad body'))).toEqual({
      kind: 'failed',
      status: 0,
      message: 'bad body',
    });
  });
});

describe('describeWait', () => {
  it('says seconds under a minute, whole minutes from there', () => {
    expect(describeWait(1)).toBe('1 second');
    expect(describeWait(30)).toBe('30 seconds');
    expect(describeWait(60)).toBe('1 minute');
    expect(describeWait(61)).toBe('2 minutes');
  });
});
