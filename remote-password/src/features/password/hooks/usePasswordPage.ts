import { useCallback, useEffect, useReducer, useRef } from 'react';
import { useToast } from 'shared-ui/toast';
import { useApiClient, useAuth, type PasswordChangeFields } from 'shared-auth';
import { useCall } from 'shared-auth/async';
import { useChallengeCheck } from 'shared-stepup';
import { changePassword } from '../api/changePassword.js';
import {
  actionForSaveFailure,
  initialPasswordPageState,
  passwordPageReducer,
} from '../model/passwordPageReducer.js';

export function usePasswordPage() {
  const { user } = useAuth();
  const client = useApiClient();
  const toast = useToast();
  const [state, dispatch] = useReducer(passwordPageReducer, initialPasswordPageState);
  // What the user asked to save: sent on Save, and sent again once a step-up verification passed.
  const fields = useRef<PasswordChangeFields | null>(null);

  // The change is not aborted when the page goes away: the server may already have applied it, and an aborted
  // request would only hide the outcome. A late answer to an unmounted page changes nothing.
  const change = useCall(
    useCallback(
      // No signal passed: this call is never aborted (see above).
      (_signal: AbortSignal, { currentPassword, newPassword }: PasswordChangeFields) =>
        changePassword(client, user.sub, { OldPassword: currentPassword, NewPassword: newPassword }),
      [client, user.sub],
    ),
    { abortOnUnmount: false },
  );
  const runChange = change.run;

  // Sends once each time the page enters SAVING (Save, or the return from a step-up verification); a second Save
  // before React re-rendered is ignored by the reducer. Any ok answer means saved.
  useEffect(() => {
    if (state.status !== 'SAVING' || !fields.current) return;
    void runChange(fields.current).then((outcome) => {
      if (outcome.status === 'success') {
        dispatch({ type: 'SAVE_SUCCEEDED' });
        toast('Your changes are saved.');
      } else if (outcome.status === 'error') dispatch(actionForSaveFailure(outcome.error));
    });
    // Only the view starts a send, never a new toast function or client.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state.status]);

  useChallengeCheck(state.status === 'STEP_UP_LOADING', dispatch);

  const save = useCallback((changed: PasswordChangeFields) => {
    fields.current = changed;
    dispatch({ type: 'SAVE' });
  }, []);

  return {
    status: state.status,
    refusal: state.refusal,
    activeFactorsData: state.activeFactorsData,
    recoveryCodes: state.recoveryCodes,
    preferredMethod: state.preferredMethod,
    startChange: () => dispatch({ type: 'START_CHANGE' }),
    cancel: () => dispatch({ type: 'CANCEL' }),
    closeRefusal: () => dispatch({ type: 'CLOSE_REFUSAL' }),
    save,
    retry: useCallback(() => dispatch({ type: 'RETRY' }), []),
    stepUpVerified: useCallback(() => dispatch({ type: 'STEP_UP_VERIFIED' }), []),
    stepUpCancelled: useCallback(() => dispatch({ type: 'STEP_UP_CANCELLED' }), []),
  };
}
