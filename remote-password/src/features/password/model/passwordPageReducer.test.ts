import { ApiError } from 'shared-auth';
import {
  actionForSaveFailure,
  initialPasswordPageState,
  passwordPageReducer,
  type PasswordPageAction,
  type PasswordPageState,
} from './passwordPageReducer.js';

const initial: PasswordPageState = { view: 'INITIAL' };
const change: PasswordPageState = { view: 'CHANGE' };
const saving: PasswordPageState = { view: 'SAVING' };
const refused: PasswordPageState = { view: 'CHANGE', refusal: 'The current password is not correct.' };
const error: PasswordPageState = { view: 'ERROR' };

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
    ['CHANGE with a refusal → CHANGE without it on Close', refused, { type: 'CLOSE_REFUSAL' }, change],
    ['CHANGE with a refusal → SAVING on Save, dropping the refusal', refused, { type: 'SAVE' }, saving],
    ['CHANGE with a refusal → INITIAL on Cancel', refused, { type: 'CANCEL' }, initial],
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
  ])('ignores %s', (_name, state, action) => {
    expect(passwordPageReducer(state, action)).toBe(state);
  });
});

describe('actionForSaveFailure', () => {
  it("sends the server's generic error to the Error view", () => {
    expect(actionForSaveFailure(new ApiError('An error happened during password change', 500))).toEqual({
      type: 'SAVE_ERRORED',
    });
  });

  it('shows any other server text in the dialog, whatever the status', () => {
    expect(actionForSaveFailure(new ApiError('The current password is not correct.', 400))).toEqual({
      type: 'SAVE_REFUSED',
      error: 'The current password is not correct.',
    });
    expect(
      actionForSaveFailure(new ApiError('Too many wrong current passwords. Try again in 15 minutes.', 429)),
    ).toEqual({ type: 'SAVE_REFUSED', error: 'Too many wrong current passwords. Try again in 15 minutes.' });
    expect(actionForSaveFailure(new ApiError('The account service could not be reached', 0))).toEqual({
      type: 'SAVE_REFUSED',
      error: 'The account service could not be reached',
    });
  });

  it('treats an answer outside the contract as unexpected', () => {
    expect(actionForSaveFailure(new Error('Invalid input: expected "changed"'))).toEqual({
      type: 'SAVE_ERRORED',
    });
  });
});
