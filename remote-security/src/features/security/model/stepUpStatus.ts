import type { ActiveFactorsData, ChallengeResponse } from 'shared-auth';

/** The Security page's step-up state (spec section 4): START, then LOADING, then CHALLENGE or NO_CHALLENGE. */
export type StepUpStatus = 'START' | 'LOADING' | 'CHALLENGE' | 'NO_CHALLENGE';

export interface StepUpState {
  status: StepUpStatus;
  activeFactorsData: ActiveFactorsData;
}

export type StepUpAction =
  | { type: 'LOAD' }
  | { type: 'CHALLENGE_LOADED'; response: ChallengeResponse }
  /** The challenge call failed: treated as a challenge with no factors (spec section 8). */
  | { type: 'CHALLENGE_FAILED' }
  | { type: 'VERIFIED' };

export const initialStepUpState: StepUpState = { status: 'START', activeFactorsData: {} };

export function stepUpReducer(state: StepUpState, action: StepUpAction): StepUpState {
  switch (action.type) {
    case 'LOAD':
      // From START, or again when the server says a verification has run out (NO_CHALLENGE → LOADING).
      return state.status === 'LOADING' ? state : { ...state, status: 'LOADING' };
    case 'CHALLENGE_LOADED':
      if (state.status !== 'LOADING') return state;
      return {
        status: action.response.challengeUser ? 'CHALLENGE' : 'NO_CHALLENGE',
        activeFactorsData: action.response.activeFactorsData,
      };
    case 'CHALLENGE_FAILED':
      return state.status === 'LOADING' ? { status: 'CHALLENGE', activeFactorsData: {} } : state;
    case 'VERIFIED':
      return state.status === 'CHALLENGE' ? { ...state, status: 'NO_CHALLENGE' } : state;
  }
}
