/**
 * Signing out from the Devices list: one other session, all the others, or (Okta mode) every session. The broad
 * ones ask first. Each call is under step-up: a 403 step_up_required loads the challenge, shows the step-up
 * screens, then sends the same sign-out again, once (a second refusal is said, not looped).
 */
import type { ActiveFactorsData, ChallengeResponse } from 'shared-auth';

/** What is signed out: one other session (named as its button says), every other one, or every one. */
export type SignOutTarget =
  { scope: 'one'; id: string; name: string } | { scope: 'others' } | { scope: 'everywhere' };

/**
 * - IDLE: nothing under way;
 * - CONFIRMING: "Sign out of all other devices?" or "Sign out everywhere?";
 * - SIGNING_OUT: the call is under way (the first time, or again after the step-up);
 * - STEP_UP_LOADING: the server asked for step-up; the challenge is being read;
 * - STEPPING_UP: the step-up screens, in a dialog;
 * - DONE / FAILED: the outcome's message, which takes the focus (another sign-out may start from here);
 * - SIGNED_OUT_EVERYWHERE: this session ended too; the page hands the holder back to the sign-in.
 */
export type SignOutStatus =
  | 'IDLE'
  | 'CONFIRMING'
  | 'SIGNING_OUT'
  | 'STEP_UP_LOADING'
  | 'STEPPING_UP'
  | 'DONE'
  | 'FAILED'
  | 'SIGNED_OUT_EVERYWHERE';

export interface SignOutState {
  status: SignOutStatus;
  target?: SignOutTarget;
  /** This sign-out has been through the step-up check: a second step_up_required is a failure. */
  steppedUp?: boolean;
  /** STEPPING_UP: the factors the screens offer (none when the challenge could not be read: 'Error'). */
  activeFactorsData?: ActiveFactorsData;
  recoveryCodes?: ChallengeResponse['recoveryCodes'];
  /** STEPPING_UP: the holder's default method, which the screens open with. */
  preferredMethod?: ChallengeResponse['preferredMethod'];
  /** DONE / FAILED: what the section says. */
  message?: string;
  /**
   * FAILED: the server asks for a new sign-in first (403 reauthentication_required, proof 'sign-in': a federated
   * account in Okta mode, whose organization checks its 2-step methods), and the page's host can start one.
   */
  signInAgain?: boolean;
}

export type SignOutAction =
  | { type: 'START'; target: SignOutTarget }
  | { type: 'CONFIRM' }
  /** No in the confirmation, or the step-up dialog closed: nothing signed out (the focus goes back to its button). */
  | { type: 'CANCEL' }
  | { type: 'STEP_UP_REQUIRED'; message: string }
  | { type: 'CHALLENGE_LOADED'; response: ChallengeResponse }
  | { type: 'CHALLENGE_FAILED' }
  | { type: 'STEP_UP_VERIFIED' }
  /** 'Try again' on the step-up 'Error' (the challenge did not load): read it again. */
  | { type: 'RETRY' }
  | { type: 'SUCCEEDED'; message: string }
  | { type: 'SIGNED_OUT_EVERYWHERE' }
  | { type: 'FAILED'; message: string; signInAgain?: boolean };

export const initialSignOut: SignOutState = { status: 'IDLE' };

/** One session goes at once (it can sign in again); the broad sign-outs ask first. */
const asksFirst = (target: SignOutTarget) => target.scope !== 'one';

export function signOutReducer(state: SignOutState, action: SignOutAction): SignOutState {
  switch (state.status) {
    case 'IDLE':
    case 'DONE':
    case 'FAILED':
      // The new sign-in it offered could not start: said in its place, the offer kept.
      if (state.status === 'FAILED' && action.type === 'FAILED') return { ...state, message: action.message };
      if (action.type !== 'START') return state;
      return { status: asksFirst(action.target) ? 'CONFIRMING' : 'SIGNING_OUT', target: action.target };
    case 'CONFIRMING':
      if (action.type === 'CONFIRM') return { ...state, status: 'SIGNING_OUT' };
      if (action.type === 'CANCEL') return { status: 'IDLE', ...target(state) };
      return state;
    case 'SIGNING_OUT':
      switch (action.type) {
        case 'STEP_UP_REQUIRED':
          return state.steppedUp
            ? { status: 'FAILED', ...target(state), message: action.message }
            : { status: 'STEP_UP_LOADING', ...target(state) };
        case 'SUCCEEDED':
          return { status: 'DONE', ...target(state), message: action.message };
        case 'SIGNED_OUT_EVERYWHERE':
          return state.target?.scope === 'everywhere'
            ? { status: 'SIGNED_OUT_EVERYWHERE', target: state.target }
            : state;
        case 'FAILED':
          return {
            status: 'FAILED',
            ...target(state),
            message: action.message,
            ...(action.signInAgain ? { signInAgain: true } : {}),
          };
        default:
          return state;
      }
    case 'STEP_UP_LOADING':
      switch (action.type) {
        case 'CHALLENGE_LOADED': {
          const { challengeUser, activeFactorsData, recoveryCodes, preferredMethod } = action.response;
          // Verified meanwhile (another tab): the sign-out goes again at once.
          return challengeUser
            ? {
                status: 'STEPPING_UP',
                ...target(state),
                activeFactorsData,
                ...(recoveryCodes ? { recoveryCodes } : {}),
                ...(preferredMethod ? { preferredMethod } : {}),
              }
            : { status: 'SIGNING_OUT', ...target(state), steppedUp: true };
        }
        case 'CHALLENGE_FAILED':
          return { status: 'STEPPING_UP', ...target(state), activeFactorsData: {} };
        case 'CANCEL':
          return { status: 'IDLE', ...target(state) };
        default:
          return state;
      }
    case 'STEPPING_UP':
      if (action.type === 'STEP_UP_VERIFIED')
        return { status: 'SIGNING_OUT', ...target(state), steppedUp: true };
      if (action.type === 'RETRY') return { status: 'STEP_UP_LOADING', ...target(state) };
      if (action.type === 'CANCEL') return { status: 'IDLE', ...target(state) };
      return state;
    case 'SIGNED_OUT_EVERYWHERE':
      return state;
  }
}

const target = (state: SignOutState) => (state.target ? { target: state.target } : {});

/** The session being signed out, for its button's spinner. */
export function busyWith(state: SignOutState): SignOutTarget | undefined {
  const busy =
    state.status === 'SIGNING_OUT' || state.status === 'STEP_UP_LOADING' || state.status === 'STEPPING_UP';
  return busy ? state.target : undefined;
}
