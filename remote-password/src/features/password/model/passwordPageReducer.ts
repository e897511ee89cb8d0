import { API_ERROR_CODES, isApiError, type ActiveFactorsData, type ChallengeResponse } from 'shared-auth';
import { classifyFailure } from 'shared-auth/async';

/**
 * The Password page's views (spec section 4): INITIAL → CHANGE (Change Password), CHANGE → INITIAL (Cancel or
 * success), CHANGE → ERROR on the server's generic error. SAVING sits between CHANGE and its outcome; a refusal
 * goes back to CHANGE with the server's text, which the page shows in its 'Changes could not be saved' dialog.
 *
 * 'Try again' (RETRY) leaves ERROR for INITIAL, and the step-up 'Error' (no factors: the challenge did not load)
 * for STEP_UP_LOADING, which loads it again.
 *
 * A user with an active 2-step factor must verify with it first (the server answers 403 step_up_required): the
 * page loads the challenge (STEP_UP_LOADING), shows the step-up screens over the form (STEP_UP), and once
 * verified saves the same change again (SAVING). The form stays mounted throughout, so nothing is retyped.
 */
export type PasswordPageStatus = 'INITIAL' | 'CHANGE' | 'SAVING' | 'STEP_UP_LOADING' | 'STEP_UP' | 'ERROR';

export interface PasswordPageState {
  status: PasswordPageStatus;
  /** The server's text of the last refused save, while its dialog is open (CHANGE only). */
  refusal?: string;
  /** STEP_UP: the factors the screens offer; none (the screens say 'Error') when the challenge failed to load. */
  activeFactorsData?: ActiveFactorsData;
  /** STEP_UP: the holder's unused recovery codes, when there are any (the screens then offer one). */
  recoveryCodes?: ChallengeResponse['recoveryCodes'];
  /** STEP_UP: the holder's default method (issue 22), when the challenge names one: the screens open with it. */
  preferredMethod?: ChallengeResponse['preferredMethod'];
  /** This save already went through the step-up check: a second step-up refusal is shown, not looped. */
  steppedUp?: boolean;
}

export type PasswordPageAction =
  | { type: 'START_CHANGE' }
  | { type: 'CANCEL' }
  | { type: 'SAVE' }
  | { type: 'SAVE_SUCCEEDED' }
  /** Any server error but the generic one: back to the form, with the text in a dialog. */
  | { type: 'SAVE_REFUSED'; error: string }
  /** The generic 'An error happened during password change', or an answer outside the contract. */
  | { type: 'SAVE_ERRORED' }
  | { type: 'CLOSE_REFUSAL' }
  /** The server wants a step-up verification first (403 step_up_required); `error` is its text. */
  | { type: 'STEP_UP_REQUIRED'; error: string }
  | { type: 'CHALLENGE_LOADED'; response: ChallengeResponse }
  /** The challenge could not be loaded: a challenge with no factors (spec section 8), i.e. 'Error'. */
  | { type: 'CHALLENGE_FAILED' }
  /** A step-up code was accepted: the same change is sent again. */
  | { type: 'STEP_UP_VERIFIED' }
  /** The step-up dialog was closed: back to the form as it was. */
  | { type: 'STEP_UP_CANCELLED' }
  /** 'Try again': from the Error view to the start, or from the step-up 'Error' to loading the challenge again. */
  | { type: 'RETRY' };

export const initialPasswordPageState: PasswordPageState = { status: 'INITIAL' };

export function passwordPageReducer(state: PasswordPageState, action: PasswordPageAction): PasswordPageState {
  switch (state.status) {
    case 'INITIAL':
      return action.type === 'START_CHANGE' ? { status: 'CHANGE' } : state;
    case 'CHANGE':
      if (action.type === 'CANCEL') return { status: 'INITIAL' };
      if (action.type === 'SAVE') return { status: 'SAVING' };
      if (action.type === 'CLOSE_REFUSAL' && state.refusal !== undefined) return { status: 'CHANGE' };
      return state;
    case 'SAVING':
      if (action.type === 'SAVE_SUCCEEDED') return { status: 'INITIAL' };
      if (action.type === 'SAVE_REFUSED') return { status: 'CHANGE', refusal: action.error };
      if (action.type === 'SAVE_ERRORED') return { status: 'ERROR' };
      if (action.type === 'STEP_UP_REQUIRED') {
        // Refused again right after a verification: say so rather than ask again in a loop.
        return state.steppedUp ? { status: 'CHANGE', refusal: action.error } : { status: 'STEP_UP_LOADING' };
      }
      return state;
    case 'STEP_UP_LOADING':
      if (action.type === 'CHALLENGE_LOADED') {
        const { challengeUser, activeFactorsData, recoveryCodes, preferredMethod } = action.response;
        // No challenge (verified meanwhile, e.g. in another tab): send the change again straight away.
        return challengeUser
          ? {
              status: 'STEP_UP',
              activeFactorsData,
              ...(recoveryCodes ? { recoveryCodes } : {}),
              ...(preferredMethod ? { preferredMethod } : {}),
            }
          : { status: 'SAVING', steppedUp: true };
      }
      if (action.type === 'CHALLENGE_FAILED') return { status: 'STEP_UP', activeFactorsData: {} };
      if (action.type === 'STEP_UP_CANCELLED') return { status: 'CHANGE' };
      return state;
    case 'STEP_UP':
      if (action.type === 'STEP_UP_VERIFIED') return { status: 'SAVING', steppedUp: true };
      if (action.type === 'STEP_UP_CANCELLED') return { status: 'CHANGE' };
      if (action.type === 'RETRY') return { status: 'STEP_UP_LOADING' };
      return state;
    case 'ERROR':
      return action.type === 'RETRY' ? { status: 'INITIAL' } : state;
  }
}

/**
 * What a failed save means (spec section 8): a 403 asking for step-up starts the step-up check; the server's
 * generic error (internal_error, whose text is the spec's generic one) leads to the Error view; any other refusal
 * (its `error` text, the wait of a 429, or a transport failure the client describes) is shown in the dialog. A
 * failure that is no answer of the API at all (a bug) is unexpected too.
 */
export function actionForSaveFailure(error: unknown): PasswordPageAction {
  if (!isApiError(error) || error.code === API_ERROR_CODES.internalError) return { type: 'SAVE_ERRORED' };
  const failure = classifyFailure(error);
  if (failure.kind === 'step_up_required') return { type: 'STEP_UP_REQUIRED', error: failure.message };
  return { type: 'SAVE_REFUSED', error: failure.message };
}
