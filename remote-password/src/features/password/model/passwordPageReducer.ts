import { isApiError, PASSWORD_CHANGE_GENERIC_ERROR } from 'shared-auth';

/**
 * The Password page's views (spec section 4): INITIAL → CHANGE (Change Password), CHANGE → INITIAL (Cancel or
 * success), CHANGE → ERROR on the server's generic error. SAVING sits between CHANGE and its outcome; a refusal
 * goes back to CHANGE with the server's text, which the page shows in its 'Changes could not be saved' dialog.
 */
export type PasswordView = 'INITIAL' | 'CHANGE' | 'SAVING' | 'ERROR';

export interface PasswordPageState {
  view: PasswordView;
  /** The server's text of the last refused save, while its dialog is open (CHANGE only). */
  refusal?: string;
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
  | { type: 'CLOSE_REFUSAL' };

export const initialPasswordPageState: PasswordPageState = { view: 'INITIAL' };

export function passwordPageReducer(state: PasswordPageState, action: PasswordPageAction): PasswordPageState {
  switch (state.view) {
    case 'INITIAL':
      return action.type === 'START_CHANGE' ? { view: 'CHANGE' } : state;
    case 'CHANGE':
      if (action.type === 'CANCEL') return { view: 'INITIAL' };
      if (action.type === 'SAVE') return { view: 'SAVING' };
      if (action.type === 'CLOSE_REFUSAL' && state.refusal !== undefined) return { view: 'CHANGE' };
      return state;
    case 'SAVING':
      if (action.type === 'SAVE_SUCCEEDED') return { view: 'INITIAL' };
      if (action.type === 'SAVE_REFUSED') return { view: 'CHANGE', refusal: action.error };
      if (action.type === 'SAVE_ERRORED') return { view: 'ERROR' };
      return state;
    case 'ERROR':
      return state;
  }
}

/**
 * What a failed save means (spec section 8): the server's generic text leads to the Error view; any other
 * refusal (its `error` text, or a transport failure the client describes) is shown in the dialog. An answer the
 * client cannot read at all (not an ApiError, e.g. a success body outside the contract) is unexpected too.
 */
export function actionForSaveFailure(error: unknown): PasswordPageAction {
  if (!isApiError(error) || error.message === PASSWORD_CHANGE_GENERIC_ERROR) return { type: 'SAVE_ERRORED' };
  return { type: 'SAVE_REFUSED', error: error.message };
}
