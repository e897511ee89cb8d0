import { useCallback, useEffect, useReducer } from 'react';
import { useApiClient, useAuth } from 'shared-auth';
import { getChallenge } from '../../stepup/api/stepUpApi.js';
import { initialStepUpState, stepUpReducer } from '../../stepup/model/stepUpStatus.js';

/** Runs the step-up check: START → LOADING → CHALLENGE or NO_CHALLENGE; `recheck` runs it again. */
export function useStepUp(enabled: boolean) {
  const { user } = useAuth();
  const client = useApiClient();
  const [state, dispatch] = useReducer(stepUpReducer, initialStepUpState);
  const loading = state.status === 'LOADING';

  useEffect(() => {
    if (enabled && state.status === 'START') dispatch({ type: 'LOAD' });
  }, [enabled, state.status]);

  useEffect(() => {
    if (!loading) return undefined;
    let current = true;
    getChallenge(client, user.sub).then(
      (response) => current && dispatch({ type: 'CHALLENGE_LOADED', response }),
      (error: unknown) => {
        console.warn('The step-up check failed:', error);
        if (current) dispatch({ type: 'CHALLENGE_FAILED' });
      },
    );
    return () => {
      current = false;
    };
  }, [loading, client, user.sub]);

  return {
    state,
    verified: useCallback(() => dispatch({ type: 'VERIFIED' }), []),
    recheck: useCallback(() => dispatch({ type: 'LOAD' }), []),
  };
}
