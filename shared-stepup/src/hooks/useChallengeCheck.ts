import { useEffect } from 'react';
import { useApiClient, useAuth, type ChallengeResponse } from 'shared-auth';
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
  useEffect(() => {
    if (!checking) return undefined;
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
  }, [checking, client, user.sub, dispatch]);
}
