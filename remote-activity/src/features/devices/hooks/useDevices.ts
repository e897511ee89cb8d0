/**
 * The Devices section's behaviour: reads the list, runs each sign-out (again after the step-up it asked for), and
 * after "Sign out everywhere" hands the holder back to the sign-in (this session ended too).
 */
import { useCallback, useEffect, useReducer } from 'react';
import { API_ERROR_CODES, useApiClient, useAuth, type AccountSessionList } from 'shared-auth';
import { useCall } from 'shared-auth/async';
import { useChallengeCheck } from 'shared-stepup';
import { failureText, hasCode } from '../../../lib/failureText.js';
import { signInAfterSessionEnded } from '../../../lib/signInAfterSessionEnded.js';
import { getSessions, signOutEverywhere, signOutOthers, signOutSession } from '../api/devicesApi.js';
import { initialSessionsList, sessionsListReducer } from '../model/sessionsList.js';
import { initialSignOut, signOutReducer, type SignOutTarget } from '../model/signOutFlow.js';
import { DEVICES_TEXTS as TEXTS } from '../model/texts.js';

/** What a sign-out answered: the list as it is now, or (everywhere) that this session ended too. */
type SignOutAnswer = { ended: 'some'; list: AccountSessionList } | { ended: 'all' };

export interface UseDevicesOptions {
  /** Sessions were signed out here (one or all others): the page's activity has a new event to show. */
  onSignedOut?: () => void;
  /** The server refused the list to a federated account (the portal's own provider's data): the page says so once. */
  onFederatedRefused?: () => void;
}

export function useDevices({ onSignedOut, onFederatedRefused }: UseDevicesOptions = {}) {
  const auth = useAuth();
  const { user } = auth;
  const client = useApiClient();
  const [list, dispatchList] = useReducer(sessionsListReducer, initialSessionsList);
  const [flow, dispatchFlow] = useReducer(signOutReducer, initialSignOut);

  const { run: runList, abort: stopList } = useCall(
    useCallback((signal: AbortSignal) => getSessions(client, user.sub, { signal }), [client, user.sub]),
  );
  const { run: runSignOut } = useCall(
    useCallback(
      async (signal: AbortSignal, target: SignOutTarget): Promise<SignOutAnswer> => {
        switch (target.scope) {
          case 'one':
            return { ended: 'some', list: await signOutSession(client, user.sub, target.id, { signal }) };
          case 'others':
            return { ended: 'some', list: await signOutOthers(client, user.sub, { signal }) };
          case 'everywhere':
            await signOutEverywhere(client, user.sub, { signal });
            return { ended: 'all' };
        }
      },
      [client, user.sub],
    ),
  );

  const load = useCallback(() => {
    dispatchList({ type: 'LOAD' });
    void runList().then((outcome) => {
      if (outcome.status === 'success') dispatchList({ type: 'LOADED', list: outcome.data });
      else if (outcome.status === 'error') {
        const { error } = outcome;
        if (hasCode(error, API_ERROR_CODES.federatedUser)) onFederatedRefused?.();
        // A server that cannot list them: its text, and "Sign out everywhere".
        if (hasCode(error, API_ERROR_CODES.sessionsUnavailable) && outcome.failure.message)
          dispatchList({ type: 'UNAVAILABLE', message: outcome.failure.message });
        else dispatchList({ type: 'LOAD_FAILED', message: failureText(error) });
      }
    });
  }, [runList, onFederatedRefused]);

  useEffect(() => {
    load();
    return stopList;
  }, [load, stopList]);

  const send = useCallback(
    async (target: SignOutTarget) => {
      const outcome = await runSignOut(target);
      if (outcome.status === 'success') {
        const answer = outcome.data;
        if (answer.ended === 'all') {
          dispatchFlow({ type: 'SIGNED_OUT_EVERYWHERE' });
          return;
        }
        dispatchList({ type: 'REPLACED', list: answer.list });
        // Okta mode: only this portal's access ended; the texts say so.
        const portal = answer.list.reach === 'portal';
        const message =
          target.scope === 'one'
            ? (portal ? TEXTS.signedOutOnePortal : TEXTS.signedOutOne)(target.name)
            : portal
              ? TEXTS.signedOutOthersPortal
              : TEXTS.signedOutOthers;
        dispatchFlow({ type: 'SUCCEEDED', message });
        onSignedOut?.();
      } else if (outcome.status === 'error') {
        const { error, failure } = outcome;
        if (failure.kind === 'step_up_required') {
          dispatchFlow({ type: 'STEP_UP_REQUIRED', message: failure.message });
          return;
        }
        // A new sign-in is the proof: offered where the host can start one (a mount() may not).
        const signInFirst = failure.kind === 'reauthentication_required' && auth.signInAgain !== undefined;
        dispatchFlow({ type: 'FAILED', message: failureText(error), signInAgain: signInFirst });
        // Gone already (signed out elsewhere, or expired): the server's text, and the list as it is now.
        if (hasCode(error, API_ERROR_CODES.notFound)) load();
      }
    },
    [runSignOut, load, onSignedOut, auth.signInAgain],
  );

  // The new sign-in comes back to this page; the holder then signs out within the 5 minutes the proof lasts.
  const { signInAgain } = auth;
  const startSignIn = useCallback(() => {
    const returnTo = `${window.location.pathname}${window.location.search}${window.location.hash}`;
    void signInAgain?.({ returnTo }).catch((error: unknown) => {
      console.error('Sign-in could not start:', error);
      dispatchFlow({ type: 'FAILED', message: TEXTS.signInAgainFailed });
    });
  }, [signInAgain]);

  // Each entry into SIGNING_OUT sends once: the first time, and again after the step-up.
  useEffect(() => {
    if (flow.status === 'SIGNING_OUT' && flow.target) void send(flow.target);
  }, [flow.status, flow.target, send]);

  useChallengeCheck(flow.status === 'STEP_UP_LOADING', dispatchFlow);

  // Every session ended, this one too: the host signs the holder in again, back to this page.
  const everywhere = flow.status === 'SIGNED_OUT_EVERYWHERE';
  const { onSessionEnded } = auth;
  useEffect(() => {
    if (everywhere) void signInAfterSessionEnded({ signInAgain, onSessionEnded });
  }, [everywhere, signInAgain, onSessionEnded]);

  return {
    list,
    flow,
    reload: load,
    signOut: (target: SignOutTarget) => dispatchFlow({ type: 'START', target }),
    confirm: () => dispatchFlow({ type: 'CONFIRM' }),
    cancel: useCallback(() => dispatchFlow({ type: 'CANCEL' }), []),
    stepUpVerified: useCallback(() => dispatchFlow({ type: 'STEP_UP_VERIFIED' }), []),
    stepUpRetry: useCallback(() => dispatchFlow({ type: 'RETRY' }), []),
    signInAgain: startSignIn,
  };
}
