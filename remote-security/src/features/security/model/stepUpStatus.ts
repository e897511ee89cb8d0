import type { ActiveFactorsData, ChallengeResponse } from 'shared-auth';

/** The Security page's step-up state (spec section 4): START, then LOADING, then CHALLENGE or NO_CHALLENGE. */
export type StepUpStatus = 'START' | 'LOADING' | 'CHALLENGE' | 'NO_CHALLENGE';

export interface StepUpState {
  status: StepUpStatus;
  activeFactorsData: ActiveFactorsData;
  /** The holder's unused recovery codes, when the challenge says there are any: the screens offer them. */
  recoveryCodes?: ChallengeResponse['recoveryCodes'];
  /** The holder's default method (issue 22), when the challenge names one: the screens open with it. */
  preferredMethod?: ChallengeResponse['preferredMethod'];
}

export type StepUpAction =
  | { type: 'LOAD' }
  | { type: 'CHALLENGE_LOADED'; response: ChallengeResponse }
  /** The challenge call failed: treated as a challenge with no factors (spec section 8). */
  | { type: 'CHALLENGE_FAILED' }
  | { type: 'VERIFIED' };

export const initialStepUpState: StepUpState = { status: 'START', activeFactorsData: {} };

export function stepUpReducer(state: StepUpState, action: StepUpAction): StepUpState {
  switch (state.status) {
    case 'START':
    case 'NO_CHALLENGE':
      // From START, or again when the server says a verification has run out (NO_CHALLENGE → LOADING).
      return action.type === 'LOAD' ? { ...state, status: 'LOADING' } : state;
    case 'LOADING':
      if (action.type === 'CHALLENGE_LOADED') {
        const { challengeUser, activeFactorsData, recoveryCodes, preferredMethod } = action.response;
        return {
          status: challengeUser ? 'CHALLENGE' : 'NO_CHALLENGE',
          activeFactorsData,
          ...(recoveryCodes ? { recoveryCodes } : {}),
          ...(preferredMethod ? { preferredMethod } : {}),
        };
      }
      if (action.type === 'CHALLENGE_FAILED') return { status: 'CHALLENGE', activeFactorsData: {} };
      return state;
    case 'CHALLENGE':
      if (action.type === 'VERIFIED') return { ...state, status: 'NO_CHALLENGE' };
      // 'Try again' on the step-up 'Error' when the check itself had failed: check again.
      if (action.type === 'LOAD') return { ...state, status: 'LOADING' };
      return state;
  }
}
