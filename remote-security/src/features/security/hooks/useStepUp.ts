import { useCallback, useEffect, useReducer } from 'react';
import { useChallengeCheck } from 'shared-stepup';
import { initialStepUpState, stepUpReducer } from '../model/stepUpStatus.js';

/** Runs the step-up check: START → LOADING → CHALLENGE or NO_CHALLENGE; `recheck` runs it again. */
export function useStepUp(enabled: boolean) {
  const [state, dispatch] = useReducer(stepUpReducer, initialStepUpState);
  const loading = state.status === 'LOADING';

  useEffect(() => {
    if (enabled && state.status === 'START') dispatch({ type: 'LOAD' });
  }, [enabled, state.status]);

  useChallengeCheck(loading, dispatch);

  return {
    state,
    verified: useCallback(() => dispatch({ type: 'VERIFIED' }), []),
    recheck: useCallback(() => dispatch({ type: 'LOAD' }), []),
  };
}
