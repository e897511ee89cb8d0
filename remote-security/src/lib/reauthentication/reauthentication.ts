import type { ReauthenticationProof } from 'shared-auth';

/**
 * "Confirm it's you": turning on the first 2-step method (a factor, or a passkey) more than 5 minutes after signing in
 * needs fresh proof. Shared by the page's features: `factor` is the feature's own key of what asked for it.
 * The server's refusal says which (`proof`):
 * - password: CLOSED → ASKING (a call answered reauthentication_required) → CHECKING (Confirm) → back to ASKING
 *   with the server's text (wrong password, too many), or CLOSING (confirmed, cancelled, or failed otherwise);
 * - sign-in (Okta mode: the server cannot check passwords): CLOSED → SIGNING_IN_AGAIN (the dialog offers a new
 *   sign-in) → REDIRECTING ('Sign in again': the page leaves for the identity provider) → back to
 *   SIGNING_IN_AGAIN with a text when the redirect could not start, or CLOSING on Cancel. A password check that
 *   answers 409 no_local_password (a server from before `proof`) goes from CHECKING to SIGNING_IN_AGAIN too.
 * CLOSING → CLOSED once the dialog has gone, when the focus goes back.
 */
export type ReauthenticationStatus =
  'CLOSED' | 'ASKING' | 'CHECKING' | 'SIGNING_IN_AGAIN' | 'REDIRECTING' | 'CLOSING';

export interface ReauthenticationState<K extends string = string> {
  status: ReauthenticationStatus;
  /** What asked for the proof (a factor, a passkey): the focus goes back to its controls. */
  factor: K | null;
  /** The text under the field or the button: a wrong password, too many, or a sign-in that could not start. */
  error: string | null;
  /** CLOSED after the dialog: the focus is still to be given back. */
  returnFocus: boolean;
}

export type ReauthenticationAction<K extends string = string> =
  | { type: 'REQUIRED'; factor: K; proof: ReauthenticationProof }
  | { type: 'SUBMIT' }
  /** 400 (wrong password) or 429 (too many): the server's text, and the user tries again. */
  | { type: 'REFUSED'; error: string }
  | { type: 'CONFIRMED' }
  /** 409 no_local_password: the server cannot check passwords, so only a new sign-in proves it. */
  | { type: 'PASSWORD_UNCHECKABLE' }
  /** 'Sign in again': the redirect to the identity provider starts. */
  | { type: 'SIGN_IN' }
  /** The redirect could not start (the identity provider unreachable): the text, and the user tries again. */
  | { type: 'SIGN_IN_FAILED'; error: string }
  /** Any other failure: the dialog closes and the original call fails as it would have. */
  | { type: 'FAILED' }
  | { type: 'CANCEL' }
  /** The dialog finished closing. */
  | { type: 'CLOSED' }
  | { type: 'FOCUS_RETURNED' };

export const initialReauthenticationState: ReauthenticationState<never> = {
  status: 'CLOSED',
  factor: null,
  error: null,
  returnFocus: false,
};

const closing = <K extends string>(state: ReauthenticationState<K>): ReauthenticationState<K> => ({
  ...state,
  status: 'CLOSING',
  error: null,
});

export function reauthenticationReducer<K extends string>(
  state: ReauthenticationState<K>,
  action: ReauthenticationAction<K>,
): ReauthenticationState<K> {
  switch (state.status) {
    case 'CLOSED':
    case 'CLOSING':
      if (action.type === 'REQUIRED')
        return {
          status: action.proof === 'sign-in' ? 'SIGNING_IN_AGAIN' : 'ASKING',
          factor: action.factor,
          error: null,
          returnFocus: false,
        };
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
      if (action.type === 'PASSWORD_UNCHECKABLE')
        return { ...state, status: 'SIGNING_IN_AGAIN', error: null };
      if (action.type === 'CONFIRMED' || action.type === 'FAILED' || action.type === 'CANCEL')
        return closing(state);
      return state;
    case 'SIGNING_IN_AGAIN':
      if (action.type === 'SIGN_IN') return { ...state, status: 'REDIRECTING', error: null };
      if (action.type === 'CANCEL') return closing(state);
      return state;
    case 'REDIRECTING':
      if (action.type === 'SIGN_IN_FAILED')
        return { ...state, status: 'SIGNING_IN_AGAIN', error: action.error };
      return state;
  }
}

/** How a call that asked for the password ended without being sent again. */
export class ReauthenticationEnded extends Error {
  override readonly name = 'ReauthenticationEnded';
  constructor(
    /** CANCELLED: the user closed the dialog. STEP_UP_REQUIRED: the account has a factor now (409 has_active_factor). */
    readonly reason: 'CANCELLED' | 'STEP_UP_REQUIRED',
  ) {
    super(reason === 'CANCELLED' ? 'The password was not confirmed' : 'Step-up verification applies instead');
  }
}
