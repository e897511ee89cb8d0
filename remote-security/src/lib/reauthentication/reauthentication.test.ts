import {
  initialReauthenticationState,
  reauthenticationReducer,
  type ReauthenticationAction,
  type ReauthenticationState,
} from './reauthentication.js';

const closed = initialReauthenticationState;
const asking: ReauthenticationState = { status: 'ASKING', factor: 'email', error: null, returnFocus: false };
const checking: ReauthenticationState = { ...asking, status: 'CHECKING' };
const wrong: ReauthenticationState = { ...asking, error: 'The password is not correct.' };
const closing: ReauthenticationState = { ...asking, status: 'CLOSING' };
const focusDue: ReauthenticationState = { ...asking, status: 'CLOSED', returnFocus: true };
const signingIn: ReauthenticationState = { ...asking, status: 'SIGNING_IN_AGAIN' };
const redirecting: ReauthenticationState = { ...asking, status: 'REDIRECTING' };
const UNREACHABLE = 'The sign-in service could not be reached. Please try again.';
const signInFailed: ReauthenticationState = { ...signingIn, error: UNREACHABLE };

describe('reauthenticationReducer', () => {
  it('starts closed', () => {
    expect(closed).toEqual({ status: 'CLOSED', factor: null, error: null, returnFocus: false });
  });

  it.each<[string, ReauthenticationState, ReauthenticationAction, ReauthenticationState]>([
    [
      'CLOSED → ASKING when a call needs the password',
      closed,
      { type: 'REQUIRED', factor: 'email', proof: 'password' },
      asking,
    ],
    ['ASKING → CHECKING on Confirm', asking, { type: 'SUBMIT' }, checking],
    [
      'CHECKING → ASKING with the server text on a wrong password or too many',
      checking,
      { type: 'REFUSED', error: 'The password is not correct.' },
      wrong,
    ],
    ['ASKING with an error → CHECKING, dropping the error', wrong, { type: 'SUBMIT' }, checking],
    ['CHECKING → CLOSING when confirmed', checking, { type: 'CONFIRMED' }, closing],
    ['CHECKING → CLOSING on any other failure', checking, { type: 'FAILED' }, closing],
    ['CHECKING → CLOSING on Cancel', checking, { type: 'CANCEL' }, closing],
    ['ASKING with an error → CLOSING on Cancel, dropping the error', wrong, { type: 'CANCEL' }, closing],
    [
      'CLOSING → CLOSED once the dialog has gone, with the focus to give back',
      closing,
      { type: 'CLOSED' },
      focusDue,
    ],
    [
      'CLOSED → CLOSED once the focus is back',
      focusDue,
      { type: 'FOCUS_RETURNED' },
      { ...focusDue, returnFocus: false },
    ],
    [
      'CLOSING → ASKING when another call needs the password at once',
      closing,
      { type: 'REQUIRED', factor: 'googleAuth', proof: 'password' },
      { ...asking, factor: 'googleAuth' },
    ],
    [
      'CLOSED → SIGNING_IN_AGAIN when a call needs a new sign-in (Okta mode)',
      closed,
      { type: 'REQUIRED', factor: 'email', proof: 'sign-in' },
      signingIn,
    ],
    [
      'CHECKING → SIGNING_IN_AGAIN when the server cannot check passwords (409 no_local_password)',
      checking,
      { type: 'PASSWORD_UNCHECKABLE' },
      signingIn,
    ],
    ['SIGNING_IN_AGAIN → REDIRECTING on Sign in again', signingIn, { type: 'SIGN_IN' }, redirecting],
    [
      'REDIRECTING → SIGNING_IN_AGAIN with a text when the redirect could not start',
      redirecting,
      { type: 'SIGN_IN_FAILED', error: UNREACHABLE },
      signInFailed,
    ],
    [
      'SIGNING_IN_AGAIN with an error → REDIRECTING, dropping it',
      signInFailed,
      { type: 'SIGN_IN' },
      redirecting,
    ],
    ['SIGNING_IN_AGAIN → CLOSING on Cancel', signInFailed, { type: 'CANCEL' }, closing],
  ])('%s', (_name, state, action, expected) => {
    expect(reauthenticationReducer(state, action)).toEqual(expected);
  });

  it.each<[string, ReauthenticationState, ReauthenticationAction]>([
    ['Confirm while closed', closed, { type: 'SUBMIT' }],
    ['a second Confirm while checking', checking, { type: 'SUBMIT' }],
    ['an answer after Cancel', closing, { type: 'CONFIRMED' }],
    ['a refusal after Cancel', closing, { type: 'REFUSED', error: 'The password is not correct.' }],
    ['an answer while asking', asking, { type: 'CONFIRMED' }],
    ['a second call while asking', asking, { type: 'REQUIRED', factor: 'googleAuth', proof: 'password' }],
    ['closed twice', closed, { type: 'CLOSED' }],
    ['focus given back when none was due', closed, { type: 'FOCUS_RETURNED' }],
    ['Cancel while the page leaves for the sign-in', redirecting, { type: 'CANCEL' }],
    ['a password Confirm in the sign-in view', signingIn, { type: 'SUBMIT' }],
    ['a failed redirect when none started', signingIn, { type: 'SIGN_IN_FAILED', error: UNREACHABLE }],
  ])('ignores %s', (_name, state, action) => {
    expect(reauthenticationReducer(state, action)).toBe(state);
  });
});
