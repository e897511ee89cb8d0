import { ApiError } from 'shared-auth';
import {
  actionForSaveFailure,
  initialPasswordPageState,
  passwordPageReducer,
  type PasswordPageAction,
  type PasswordPageState,
} from './passwordPageReducer.js';

const initial: PasswordPageState = { status: 'INITIAL' };
const change: PasswordPageState = { status: 'CHANGE' };
const saving: PasswordPageState = { status: 'SAVING' };
const refused: PasswordPageState = { status: 'CHANGE', refusal: 'The current password is not correct.' };
const error: PasswordPageState = { status: 'ERROR' };
const loadingChallenge: PasswordPageState = { status: 'STEP_UP_LOADING' };
const factors = { googleAuth: {}, email: { maskedEmail: 'a....e@example.com' } };
const stepUp: PasswordPageState = { status: 'STEP_UP', activeFactorsData: factors };
const resaving: PasswordPageState = { status: 'SAVING', steppedUp: true };
const STEP_UP_TEXT =
  'Step-up verification required: verify with one of your 2-step factors first (a verification lasts 5 minutes).';

describe('passwordPageReducer', () => {
  it('starts in the Initial view', () => {
    expect(initialPasswordPageState).toEqual(initial);
  });

  it.each<[string, PasswordPageState, PasswordPageAction, PasswordPageState]>([
    ['INITIAL → CHANGE on Change Password', initial, { type: 'START_CHANGE' }, change],
    ['CHANGE → INITIAL on Cancel', change, { type: 'CANCEL' }, initial],
    ['CHANGE → SAVING on Save', change, { type: 'SAVE' }, saving],
    ['SAVING → INITIAL on success', saving, { type: 'SAVE_SUCCEEDED' }, initial],
    [
      'SAVING → CHANGE with the refusal on any other server error',
      saving,
      { type: 'SAVE_REFUSED', error: 'The current password is not correct.' },
      refused,
    ],
    ['SAVING → ERROR on the generic server error', saving, { type: 'SAVE_ERRORED' }, error],
    ['ERROR → INITIAL on Try again', error, { type: 'RETRY' }, initial],
    [
      'STEP_UP → STEP_UP_LOADING on Try again (the challenge again)',
      stepUp,
      { type: 'RETRY' },
      loadingChallenge,
    ],
    ['CHANGE with a refusal → CHANGE without it on Close', refused, { type: 'CLOSE_REFUSAL' }, change],
    ['CHANGE with a refusal → SAVING on Save, dropping the refusal', refused, { type: 'SAVE' }, saving],
    ['CHANGE with a refusal → INITIAL on Cancel', refused, { type: 'CANCEL' }, initial],
    [
      'SAVING → STEP_UP_LOADING when the server asks for step-up',
      saving,
      { type: 'STEP_UP_REQUIRED', error: STEP_UP_TEXT },
      loadingChallenge,
    ],
    [
      'STEP_UP_LOADING → STEP_UP with the factors when a challenge is needed',
      loadingChallenge,
      { type: 'CHALLENGE_LOADED', response: { challengeUser: true, activeFactorsData: factors } },
      stepUp,
    ],
    [
      'STEP_UP_LOADING → STEP_UP with the factors and the unused recovery codes when the holder has some',
      loadingChallenge,
      {
        type: 'CHALLENGE_LOADED',
        response: { challengeUser: true, activeFactorsData: factors, recoveryCodes: { left: 4 } },
      },
      { ...stepUp, recoveryCodes: { left: 4 } },
    ],
    [
      "STEP_UP_LOADING → STEP_UP with the holder's default method when the challenge names one (issue 22)",
      loadingChallenge,
      {
        type: 'CHALLENGE_LOADED',
        response: { challengeUser: true, activeFactorsData: factors, preferredMethod: 'email' },
      },
      { ...stepUp, preferredMethod: 'email' },
    ],
    [
      'STEP_UP_LOADING → SAVING again, the default method dropped, when no challenge is needed any more',
      loadingChallenge,
      {
        type: 'CHALLENGE_LOADED',
        response: { challengeUser: false, activeFactorsData: factors, preferredMethod: 'email' },
      },
      resaving,
    ],
    [
      'STEP_UP with a default method → STEP_UP_LOADING on Try again (the challenge, and its default, again)',
      { ...stepUp, preferredMethod: 'email' },
      { type: 'RETRY' },
      loadingChallenge,
    ],
    [
      'STEP_UP with a default method → CHANGE when the dialog is closed',
      { ...stepUp, preferredMethod: 'email' },
      { type: 'STEP_UP_CANCELLED' },
      change,
    ],
    [
      'STEP_UP_LOADING → SAVING again when no challenge is needed any more',
      loadingChallenge,
      { type: 'CHALLENGE_LOADED', response: { challengeUser: false, activeFactorsData: factors } },
      resaving,
    ],
    [
      'STEP_UP_LOADING → STEP_UP with no factors when the challenge fails to load',
      loadingChallenge,
      { type: 'CHALLENGE_FAILED' },
      { status: 'STEP_UP', activeFactorsData: {} },
    ],
    [
      'STEP_UP_LOADING → CHANGE when the dialog is closed',
      loadingChallenge,
      { type: 'STEP_UP_CANCELLED' },
      change,
    ],
    ['STEP_UP → SAVING the same change once verified', stepUp, { type: 'STEP_UP_VERIFIED' }, resaving],
    ['STEP_UP → CHANGE when the dialog is closed', stepUp, { type: 'STEP_UP_CANCELLED' }, change],
    ['SAVING after a verification → INITIAL on success', resaving, { type: 'SAVE_SUCCEEDED' }, initial],
    [
      'SAVING after a verification → CHANGE with the refusal when step-up is asked again (no loop)',
      resaving,
      { type: 'STEP_UP_REQUIRED', error: STEP_UP_TEXT },
      { status: 'CHANGE', refusal: STEP_UP_TEXT },
    ],
    [
      'CHANGE → SAVING on a new Save forgets the earlier verification',
      { status: 'CHANGE', refusal: STEP_UP_TEXT },
      { type: 'SAVE' },
      saving,
    ],
  ])('%s', (_name, state, action, expected) => {
    expect(passwordPageReducer(state, action)).toEqual(expected);
  });

  it.each<[string, PasswordPageState, PasswordPageAction]>([
    ['Save in INITIAL', initial, { type: 'SAVE' }],
    ['Cancel in INITIAL', initial, { type: 'CANCEL' }],
    ['Change Password while changing', change, { type: 'START_CHANGE' }],
    ['a success that was never asked for', change, { type: 'SAVE_SUCCEEDED' }],
    ['Close without a refusal', change, { type: 'CLOSE_REFUSAL' }],
    ['Cancel while saving', saving, { type: 'CANCEL' }],
    ['a second Save while saving', saving, { type: 'SAVE' }],
    ['anything in ERROR', error, { type: 'START_CHANGE' }],
    ['a step-up refusal outside a save', change, { type: 'STEP_UP_REQUIRED', error: STEP_UP_TEXT }],
    ['a challenge answer after the dialog was closed', change, { type: 'CHALLENGE_FAILED' }],
    ['a verification after the dialog was closed', change, { type: 'STEP_UP_VERIFIED' }],
    ['a verification while the challenge loads', loadingChallenge, { type: 'STEP_UP_VERIFIED' }],
    ['a second challenge answer on the screens', stepUp, { type: 'CHALLENGE_FAILED' }],
    ['Cancel of the form under the step-up screens', stepUp, { type: 'CANCEL' }],
    ['a Save under the step-up screens', stepUp, { type: 'SAVE' }],
    ['closing the step-up dialog while saving', saving, { type: 'STEP_UP_CANCELLED' }],
    ['Try again in the Initial view', initial, { type: 'RETRY' }],
    ['Try again in the Change view', change, { type: 'RETRY' }],
    ['Try again while saving', saving, { type: 'RETRY' }],
    ['Try again while the challenge loads', loadingChallenge, { type: 'RETRY' }],
  ])('ignores %s', (_name, state, action) => {
    expect(passwordPageReducer(state, action)).toBe(state);
  });
});

describe('actionForSaveFailure', () => {
  it("sends the server's generic error to the Error view", () => {
    expect(
      actionForSaveFailure(new ApiError('An error happened during password change', 500, 'internal_error')),
    ).toEqual({
      type: 'SAVE_ERRORED',
    });
  });

  it('shows any other server text in the dialog, whatever the status', () => {
    expect(actionForSaveFailure(new ApiError('The current password is not correct.', 400))).toEqual({
      type: 'SAVE_REFUSED',
      error: 'The current password is not correct.',
    });
    expect(
      actionForSaveFailure(
        new ApiError('Too many wrong current passwords. Try again in 15 minutes.', 429, 'rate_limited'),
      ),
    ).toEqual({ type: 'SAVE_REFUSED', error: 'Too many wrong current passwords. Try again in 15 minutes.' });
    // A 429 without the server's text says the Retry-After wait (the shared reading of a 429).
    expect(
      actionForSaveFailure(
        Object.assign(new ApiError('The account service answered 429', 429), { retryAfterSeconds: 90 }),
      ),
    ).toEqual({ type: 'SAVE_REFUSED', error: 'Too many attempts. Try again in 2 minutes.' });
    expect(actionForSaveFailure(new ApiError('The account service could not be reached', 0))).toEqual({
      type: 'SAVE_REFUSED',
      error: 'The account service could not be reached',
    });
  });

  it('starts the step-up check on a 403 with the step_up_required code, never on its text alone', () => {
    expect(actionForSaveFailure(new ApiError(STEP_UP_TEXT, 403, 'step_up_required'))).toEqual({
      type: 'STEP_UP_REQUIRED',
      error: STEP_UP_TEXT,
    });
    expect(actionForSaveFailure(new ApiError('Verify first.', 403, 'step_up_required'))).toEqual({
      type: 'STEP_UP_REQUIRED',
      error: 'Verify first.',
    });
    expect(actionForSaveFailure(new ApiError(STEP_UP_TEXT, 403))).toEqual({
      type: 'SAVE_REFUSED',
      error: STEP_UP_TEXT,
    });
    expect(
      actionForSaveFailure(new ApiError('Federated users cannot change their password here.', 403)),
    ).toEqual({
      type: 'SAVE_REFUSED',
      error: 'Federated users cannot change their password here.',
    });
  });

  it('treats an answer outside the contract as unexpected', () => {
    expect(actionForSaveFailure(new Error('Invalid input: expected "changed"'))).toEqual({
      type: 'SAVE_ERRORED',
    });
  });
});
