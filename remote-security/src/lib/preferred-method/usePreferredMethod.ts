/**
 * "Use by default" on the Security page (issue 22): the holder's default 2-step method, its call (under step-up: a
 * 403 step_up_required hands over to the page's step-up screens), the success message, and forgetting the default
 * when its method is turned off or removed. The factors and the passkeys both show it (features do not import each
 * other, so it lives here).
 */
import { useCallback, useReducer } from 'react';
import { useApiClient, useAuth, type PreferredMethod } from 'shared-auth';
import { useCall } from 'shared-auth/async';
import { useToast } from 'shared-ui/toast';
import { choosePreferredMethod } from './preferredMethodApi.js';
import { initialPreferredMethod, preferredMethodReducer } from './preferredMethod.js';
import { PREFERRED_METHOD_TEXTS } from './texts.js';

export function usePreferredMethod(preferred: PreferredMethod | undefined, onStepUpRequired: () => void) {
  const { user } = useAuth();
  const client = useApiClient();
  const toast = useToast();
  const [state, dispatch] = useReducer(preferredMethodReducer, preferred, initialPreferredMethod);
  const { run } = useCall(
    useCallback(
      (signal: AbortSignal, method: PreferredMethod) =>
        choosePreferredMethod(client, user.sub, method, { signal }),
      [client, user.sub],
    ),
  );

  const choose = useCallback(
    async (method: PreferredMethod) => {
      dispatch({ type: 'CHOOSE', method });
      const outcome = await run(method);
      if (outcome.status === 'success') {
        dispatch({ type: 'CHOSEN', method: outcome.data.preferredMethod });
        toast(PREFERRED_METHOD_TEXTS.chosen);
      } else if (outcome.status === 'error') {
        const { failure } = outcome;
        if (failure.kind === 'step_up_required') {
          dispatch({ type: 'STEP_UP' });
          onStepUpRequired();
        } else {
          // A refusal's text is the server's (the method is not on any more); anything else, the page's own.
          const error = failure.kind === 'refused' ? failure.message : PREFERRED_METHOD_TEXTS.failed;
          dispatch({ type: 'FAILED', error });
        }
      }
    },
    [run, toast, onStepUpRequired],
  );

  return {
    state,
    choose: (method: PreferredMethod) => void choose(method),
    /** A method was turned off or removed: it is no default any more. */
    methodGone: useCallback((method: PreferredMethod) => dispatch({ type: 'METHOD_GONE', method }), []),
  };
}

/** What the sections get: the state and the two actions. */
export type DefaultMethod = ReturnType<typeof usePreferredMethod>;
