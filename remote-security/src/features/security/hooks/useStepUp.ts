import { useCallback, useEffect, useReducer } from 'react';
import { useApiClient, useAuth } from 'shared-auth';
import { getChallenge } from 'shared-stepup';
import { initialStepUpState, stepUpReducer } from '../model/stepUpStatus.js';

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
    // Leaving the page mid-check ends the request; its answer is not acted on.
    const controller = new AbortController();
    getChallenge(client, user.sub, { signal: controller.signal }).then(
      (response) => dispatch({ type: 'CHALLENGE_LOADED', response }),
      (error: unknown) => {
        if (controller.signal.aborted) return;
        console.warn('The step-up check failed:', error);
        dispatch({ type: 'CHALLENGE_FAILED' });
      },
    );
    return () => controller.abort();
  }, [loading, client, user.sub]);

  return {
    state,
    verified: useCallback(() => dispatch({ type: 'VERIFIED' }), []),
    recheck: useCallback(() => dispatch({ type: 'LOAD' }), []),
  };
}
