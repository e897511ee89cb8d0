import { useCallback, useReducer, useRef } from 'react';
import { App } from 'shared-ui';
import { useApiClient, useAuth, type PasswordChangeFields } from 'shared-auth';
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
  // A second submit before React re-rendered (double Enter) must not send a second request.
  const inFlight = useRef(false);

  const save = useCallback(
    async ({ currentPassword, newPassword }: PasswordChangeFields) => {
      if (state.view !== 'CHANGE' || inFlight.current) return;
      inFlight.current = true;
      dispatch({ type: 'SAVE' });
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
      } finally {
        inFlight.current = false;
      }
    },
    [client, notification, state.view, user.sub],
  );

  return {
    view: state.view,
    refusal: state.refusal,
    startChange: () => dispatch({ type: 'START_CHANGE' }),
    cancel: () => dispatch({ type: 'CANCEL' }),
    closeRefusal: () => dispatch({ type: 'CLOSE_REFUSAL' }),
    save,
  };
}
