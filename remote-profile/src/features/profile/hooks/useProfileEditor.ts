import { useCallback, useMemo, useReducer } from 'react';
import { App } from 'shared-ui';
import { isApiError, useApiClient, useAuth } from 'shared-auth';
import { updateProfile } from '../api/updateProfile.js';
import { changedFields, profileFromUser, type ProfileFields } from '../model/profile.js';
import { initialProfileState, profileReducer } from '../model/profileReducer.js';

const TOAST_SECONDS = 30;

export function useProfileEditor() {
  const { user, isFederated, refreshUser } = useAuth();
  const client = useApiClient();
  const { notification } = App.useApp();
  const [state, dispatch] = useReducer(profileReducer, initialProfileState);
  const profile = useMemo<ProfileFields>(
    () => ({ ...profileFromUser(user), ...state.saved }),
    [user, state.saved],
  );

  const save = useCallback(
    async (edited: Partial<ProfileFields>) => {
      const changes = changedFields(profile, edited);
      dispatch({ type: 'SAVE', changes });
      if (Object.keys(changes).length === 0) return;
      try {
        const stored = await updateProfile(client, user.sub, changes);
        // Renew the ID token before saying "saved", so a reload right after shows the new values. The save
        // itself is stored already: a failed renewal only delays when the claims catch up.
        await refreshUser().catch((error: unknown) =>
          console.warn('Could not refresh the signed-in user:', error),
        );
        dispatch({
          type: 'SAVE_SUCCEEDED',
          stored: { firstName: stored.firstName, lastName: stored.lastName, country: stored.country },
        });
        notification.success({
          title: 'Your changes are saved.',
          placement: 'topRight',
          duration: TOAST_SECONDS,
        });
      } catch (error) {
        dispatch({
          type: 'SAVE_FAILED',
          error: isApiError(error) ? error.message : 'Your changes could not be saved.',
        });
      }
    },
    [client, notification, profile, refreshUser, user.sub],
  );

  return {
    profile,
    status: state.status,
    error: state.error,
    canEdit: !isFederated,
    loaded: user.sub !== '',
    edit: () => dispatch({ type: 'EDIT' }),
    cancel: () => dispatch({ type: 'CANCEL' }),
    save,
  };
}
