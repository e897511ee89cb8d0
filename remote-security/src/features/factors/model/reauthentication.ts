import type { FactorKind } from './enrolment.js';

/**
 * "Confirm it's you": turning on the first 2-step factor more than 5 minutes after signing in needs the password
 * again. CLOSED → ASKING (a call answered reauthentication_required) → CHECKING (Confirm) → back to ASKING with the
 * server's text (wrong password, too many), or CLOSING (confirmed, cancelled, or failed otherwise) → CLOSED once the
 * dialog has gone, when the focus goes back.
 */
export type ReauthenticationStatus = 'CLOSED' | 'ASKING' | 'CHECKING' | 'CLOSING';

export interface ReauthenticationState {
  status: ReauthenticationStatus;
  /** The factor whose call asked for the password: the focus goes back to its controls. */
  factor: FactorKind | null;
  /** The server's text under the field: a wrong password, or too many of them. */
  error: string | null;
  /** CLOSED after the dialog: the focus is still to be given back. */
  returnFocus: boolean;
}

export type ReauthenticationAction =
  | { type: 'REQUIRED'; factor: FactorKind }
  | { type: 'SUBMIT' }
  /** 400 (wrong password) or 429 (too many): the server's text, and the user tries again. */
  | { type: 'REFUSED'; error: string }
  | { type: 'CONFIRMED' }
  /** Any other failure: the dialog closes and the original call fails as it would have. */
  | { type: 'FAILED' }
  | { type: 'CANCEL' }
  /** The dialog finished closing. */
  | { type: 'CLOSED' }
  | { type: 'FOCUS_RETURNED' };

export const initialReauthenticationState: ReauthenticationState = {
  status: 'CLOSED',
  factor: null,
  error: null,
  returnFocus: false,
};

const closing = (state: ReauthenticationState): ReauthenticationState => ({
  ...state,
  status: 'CLOSING',
  error: null,
});

export function reauthenticationReducer(
  state: ReauthenticationState,
  action: ReauthenticationAction,
): ReauthenticationState {
  switch (state.status) {
    case 'CLOSED':
    case 'CLOSING':
      if (action.type === 'REQUIRED')
        return { status: 'ASKING', factor: action.factor, error: null, returnFocus: false };
      if (action.type === 'CLOSED' && state.status === 'CLOSING')
        return { ...state, status: 'CLOSED', returnFocus: true };
      if (action.type === 'FOCUS_RETURNED' && state.returnFocus) return { ...state, returnFocus: false };
      return state;
    case 'ASKING':
      if (action.type === 'SUBMIT') return { ...state, status: 'CHECKING', error: null };
      if (action.type === 'CANCEL') return closing(state);
      return state;
    case 'CHECKING':
      if (action.type === 'REFUSED') return { ...state, status: 'ASKING', error: action.error };
      if (action.type === 'CONFIRMED' || action.type === 'FAILED' || action.type === 'CANCEL')
        return closing(state);
      return state;
  }
}

/** How a call that asked for the password ended without being sent again. */
export class ReauthenticationEnded extends Error {
  override readonly name = 'ReauthenticationEnded';
  constructor(
    /** CANCELLED: the user closed the dialog. STEP_UP_REQUIRED: the account has a factor now (409). */
    readonly reason: 'CANCELLED' | 'STEP_UP_REQUIRED',
  ) {
    super(reason === 'CANCELLED' ? 'The password was not confirmed' : 'Step-up verification applies instead');
  }
}
