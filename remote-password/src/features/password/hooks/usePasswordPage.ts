import { useCallback, useEffect, useReducer, useRef } from 'react';
import { App } from 'shared-ui';
import { useApiClient, useAuth, type PasswordChangeFields } from 'shared-auth';
import { useChallengeCheck } from 'shared-stepup';
import { changePassword } from '../api/changePassword.js';
import {
  actionForSaveFailure,
  initialPasswordPageState,
  passwordPageReducer,
} from '../model/passwordPageReducer.js';

/** How long the 'Your changes are saved.' notification stays (spec section 9). */
const NOTIFICATION_SECONDS = 30;

export function usePasswordPage() {
  const { user } = useAuth();
  const client = useApiClient();
  const { notification } = App.useApp();
  const [state, dispatch] = useReducer(passwordPageReducer, initialPasswordPageState);
  // What the user asked to save: sent on Save, and sent again once a step-up verification passed.
  const fields = useRef<PasswordChangeFields | null>(null);

  // The change is not aborted when the page goes away: the server may already have applied it, and an aborted
  // request would only hide the outcome. A late answer to an unmounted page changes nothing.
  const send = useCallback(async () => {
    if (!fields.current) return;
    const { currentPassword, newPassword } = fields.current;
    try {
      await changePassword(client, user.sub, { OldPassword: currentPassword, NewPassword: newPassword });
      dispatch({ type: 'SAVE_SUCCEEDED' });
      notification.success({
        title: 'Your changes are saved.',
        placement: 'topRight',
        duration: NOTIFICATION_SECONDS,
      });
    } catch (error) {
      dispatch(actionForSaveFailure(error));
    }
  }, [client, notification, user.sub]);

  // Sends once each time the page enters SAVING (Save, or the return from a step-up verification), never because
  // a dependency of `send` changed; a second Save before React re-rendered is ignored by the reducer.
  const sendRef = useRef(send);
  useEffect(() => {
    sendRef.current = send;
  }, [send]);
  useEffect(() => {
    if (state.view === 'SAVING') void sendRef.current();
  }, [state.view]);

  useChallengeCheck(state.view === 'STEP_UP_LOADING', dispatch);

  const save = useCallback((changed: PasswordChangeFields) => {
    fields.current = changed;
    dispatch({ type: 'SAVE' });
  }, []);

  return {
    view: state.view,
    refusal: state.refusal,
    activeFactorsData: state.activeFactorsData,
    startChange: () => dispatch({ type: 'START_CHANGE' }),
    cancel: () => dispatch({ type: 'CANCEL' }),
    closeRefusal: () => dispatch({ type: 'CLOSE_REFUSAL' }),
    save,
    stepUpVerified: useCallback(() => dispatch({ type: 'STEP_UP_VERIFIED' }), []),
    stepUpCancelled: useCallback(() => dispatch({ type: 'STEP_UP_CANCELLED' }), []),
  };
}
