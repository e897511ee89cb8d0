import { useCallback, useMemo, useReducer } from 'react';
import { useToast } from 'shared-ui/toast';
import { isApiError, useApiClient, useAuth, type ProfileUpdate } from 'shared-auth';
import { useCall } from 'shared-auth/async';
import { updateProfile } from '../api/updateProfile.js';
import { changedFields, profileFromUser, type ProfileFields } from '../model/profile.js';
import { initialProfileState, profileReducer } from '../model/profileReducer.js';

export function useProfileEditor() {
  const { user, isFederated, refreshUser } = useAuth();
  const client = useApiClient();
  const toast = useToast();
  const [state, dispatch] = useReducer(profileReducer, initialProfileState);
  const profile = useMemo<ProfileFields>(
    () => ({ ...profileFromUser(user), ...state.saved }),
    [user, state.saved],
  );
  const update = useCall(
    useCallback(
      (signal: AbortSignal, changes: ProfileUpdate) => updateProfile(client, user.sub, changes, { signal }),
      [client, user.sub],
    ),
  );
  const runUpdate = update.run;

  const save = useCallback(
    async (edited: Partial<ProfileFields>) => {
      const changes = changedFields(profile, edited);
      dispatch({ type: 'SAVE', changes });
      if (Object.keys(changes).length === 0) return;
      const outcome = await runUpdate(changes);
      if (outcome.status === 'error') {
        dispatch({
          type: 'SAVE_FAILED',
          error: isApiError(outcome.error) ? outcome.failure.message : 'Your changes could not be saved.',
        });
        return;
      }
      if (outcome.status !== 'success') return;
      // Renew the ID token before saying "saved", so a reload right after shows the new values. The save
      // itself is stored already: a failed renewal only delays when the claims catch up.
      await refreshUser().catch((error: unknown) =>
        console.warn('Could not refresh the signed-in user:', error),
      );
      // Any ok answer means saved (spec section 7): what was sent, with the stored values where the answer has them.
      const answer: Partial<ProfileFields> = outcome.data ?? {};
      const stored: Partial<ProfileFields> = { ...changes };
      for (const field of ['firstName', 'lastName', 'country'] as const) {
        const value = answer[field];
        if (typeof value === 'string') stored[field] = value;
      }
      dispatch({ type: 'SAVE_SUCCEEDED', stored });
      toast('Your changes are saved.');
    },
    [profile, refreshUser, runUpdate, toast],
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
