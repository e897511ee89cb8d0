import { useCallback, useEffect } from 'react';
import { useApiClient, useAuth, type ChallengeResponse } from 'shared-auth';
import { useCall } from 'shared-auth/async';
import { getChallenge } from '../api/stepUpApi.js';

/** What a page's reducer is told about the step-up check. */
export type ChallengeCheckAction =
  | { type: 'CHALLENGE_LOADED'; response: ChallengeResponse }
  /** The check failed: the spec treats it as a challenge with no factors. */
  | { type: 'CHALLENGE_FAILED' };

/**
 * While `checking`, asks the server whether this sign-in session must step up (GET /api/stepup/{sub}/challenge)
 * and dispatches the answer. Stopping (leaving the page, closing the dialog) aborts the request, and its answer is
 * not acted on. The Security page and the Password page's save both run it.
 */
export function useChallengeCheck(checking: boolean, dispatch: (action: ChallengeCheckAction) => void): void {
  const { user } = useAuth();
  const client = useApiClient();
  const { run, abort } = useCall(
    useCallback((signal: AbortSignal) => getChallenge(client, user.sub, { signal }), [client, user.sub]),
  );
  useEffect(() => {
    if (!checking) return undefined;
    void run().then((outcome) => {
      if (outcome.status === 'success') dispatch({ type: 'CHALLENGE_LOADED', response: outcome.data });
      else if (outcome.status === 'error') {
        console.warn('The step-up check failed:', outcome.error);
        dispatch({ type: 'CHALLENGE_FAILED' });
      }
    });
    return abort;
  }, [checking, run, abort, dispatch]);
}
