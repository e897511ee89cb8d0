/**
 * The Activity section's behaviour: reads the first page, then each next one on "Show more"; reports "This wasn't
 * me", then hands the holder (signed out everywhere) to the sign-in, to land on the Password page.
 */
import { useCallback, useEffect, useReducer, useState } from 'react';
import { API_ERROR_CODES, useApiClient, useAuth } from 'shared-auth';
import { useCall } from 'shared-auth/async';
import { failureText, hasCode } from '../../../lib/failureText.js';
import { signInAfterSessionEnded, type SignInHandOver } from '../../../lib/signInAfterSessionEnded.js';
import { getActivity, reportNotMe } from '../api/activityApi.js';
import { activityListReducer, initialActivityList } from '../model/activityList.js';
import { initialNotMe, notMeReducer } from '../model/notMe.js';

/**
 * Where the holder lands after signing in again: the portal's Password page (the shell's route), which asks for
 * step-up itself before the change.
 */
export const PASSWORD_PAGE_PATH = '/password';

export interface UseActivityOptions {
  /** The server refused the list to a federated account (the portal's own provider's data): the page says so once. */
  onFederatedRefused?: () => void;
}

export function useActivity({ onFederatedRefused }: UseActivityOptions = {}) {
  const auth = useAuth();
  const { user, signInAgain, onSessionEnded } = auth;
  const client = useApiClient();
  const [list, dispatchList] = useReducer(activityListReducer, initialActivityList);
  const [notMe, dispatchNotMe] = useReducer(notMeReducer, initialNotMe);
  const [handOver, setHandOver] = useState<SignInHandOver>();

  const { run: runFirst, abort: stopFirst } = useCall(
    useCallback(
      (signal: AbortSignal) => getActivity(client, user.sub, undefined, { signal }),
      [client, user.sub],
    ),
  );
  const { run: runMore } = useCall(
    useCallback(
      (signal: AbortSignal, before: string) => getActivity(client, user.sub, before, { signal }),
      [client, user.sub],
    ),
  );
  const { run: runReport } = useCall(
    useCallback(
      (signal: AbortSignal, eventId: string) => reportNotMe(client, user.sub, eventId, { signal }),
      [client, user.sub],
    ),
  );

  const load = useCallback(() => {
    dispatchList({ type: 'LOAD' });
    void runFirst().then((outcome) => {
      if (outcome.status === 'success') dispatchList({ type: 'LOADED', page: outcome.data });
      else if (outcome.status === 'error') {
        const { error, failure } = outcome;
        if (hasCode(error, API_ERROR_CODES.federatedUser)) onFederatedRefused?.();
        // Okta mode: the org's System Log is not read here; its text, never "no activity".
        if (hasCode(error, API_ERROR_CODES.activityUnavailable) && failure.message)
          dispatchList({ type: 'UNAVAILABLE', message: failure.message });
        else dispatchList({ type: 'LOAD_FAILED', message: failureText(error) });
      }
    });
  }, [runFirst, onFederatedRefused]);

  useEffect(() => {
    load();
    return stopFirst;
  }, [load, stopFirst]);

  const { next, more } = list;
  const showMore = useCallback(() => {
    if (next === null || more === 'LOADING') return;
    dispatchList({ type: 'MORE' });
    void runMore(next).then((outcome) => {
      if (outcome.status === 'success') dispatchList({ type: 'MORE_LOADED', page: outcome.data });
      else if (outcome.status === 'error')
        dispatchList({ type: 'MORE_FAILED', message: failureText(outcome.error) });
    });
  }, [next, more, runMore]);

  const { status: notMeStatus, eventId } = notMe;
  const confirmNotMe = useCallback(() => {
    if (notMeStatus !== 'CONFIRMING' || eventId === undefined) return;
    dispatchNotMe({ type: 'CONFIRM' });
    void runReport(eventId).then((outcome) => {
      if (outcome.status === 'success') dispatchNotMe({ type: 'REPORTED' });
      else if (outcome.status === 'error')
        dispatchNotMe({ type: 'FAILED', message: failureText(outcome.error) });
    });
  }, [notMeStatus, eventId, runReport]);

  // Signed out everywhere: sign in again, then the Password page.
  const signedOut = notMeStatus === 'SIGNED_OUT';
  useEffect(() => {
    if (!signedOut) return;
    void signInAfterSessionEnded({ signInAgain, onSessionEnded }, PASSWORD_PAGE_PATH).then(setHandOver);
  }, [signedOut, signInAgain, onSessionEnded]);

  return {
    list,
    notMe,
    /** SIGNED_OUT: whether the host took the holder to the sign-in, or offers no way (the page says what to do). */
    handOver,
    reload: load,
    showMore,
    askNotMe: (id: string) => dispatchNotMe({ type: 'ASK', eventId: id }),
    cancelNotMe: () => dispatchNotMe({ type: 'CANCEL' }),
    confirmNotMe,
  };
}
