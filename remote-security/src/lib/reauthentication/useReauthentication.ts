import { useCallback, useEffect, useReducer, useRef } from 'react';
import { API_ERROR_CODES, isApiError, useApiClient, useAuth } from 'shared-auth';
import { classifyFailure, useCall } from 'shared-auth/async';
import { reauthenticate } from './reauthenticate.js';
import {
  initialReauthenticationState,
  ReauthenticationEnded,
  reauthenticationReducer,
  type ReauthenticationAction,
  type ReauthenticationState,
} from './reauthentication.js';

/** Runs a factor's call; when the server asks for the password first, asks for it and runs the call once more. */
export type ReauthenticationGuard = <T>(call: () => Promise<T>) => Promise<T>;

type Outcome =
  | { type: 'CONFIRMED' }
  | { type: 'ENDED'; reason: ReauthenticationEnded['reason'] }
  | { type: 'FAILED'; error: unknown };

const CANCELLED: Outcome = { type: 'ENDED', reason: 'CANCELLED' };

/** The text when the new sign-in could not start (the identity provider unreachable). */
export const SIGN_IN_AGAIN_FAILED = 'The sign-in service could not be reached. Please try again.';

/** This page's address, to come back to after the new sign-in. */
const currentAddress = () => `${window.location.pathname}${window.location.search}${window.location.hash}`;

/**
 * "Confirm it's you" for a feature of the Security page (the factors, the passkeys): `guard(key, call)` runs the call, and on 403
 * reauthentication_required opens the dialog and waits. With proof 'password': confirmed, the call runs again;
 * cancelled, it rejects with ReauthenticationEnded('CANCELLED') and the factor stays off; a 409 has_active_factor
 * (the account has a factor by now) rejects with ReauthenticationEnded('STEP_UP_REQUIRED'); a 409
 * no_local_password turns the dialog into the sign-in-again view; any other failure of the check rejects with
 * that failure. With proof 'sign-in' (Okta mode) the dialog offers a new sign-in (`signInAgain`), which leaves
 * the page and comes back to it; the call waits until then or Cancel.
 */
export function useReauthentication<K extends string>() {
  const { user, signInAgain } = useAuth();
  const client = useApiClient();
  const [state, dispatch] = useReducer(
    reauthenticationReducer as (
      state: ReauthenticationState<K>,
      action: ReauthenticationAction<K>,
    ) => ReauthenticationState<K>,
    initialReauthenticationState as ReauthenticationState<K>,
  );
  // The call waiting for the dialog, and the element that had the focus when it started.
  const pending = useRef<((outcome: Outcome) => void) | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  // The password check: aborted by Cancel and by leaving the page (useCall), its answer then ignored.
  const check = useCall(
    useCallback(
      (signal: AbortSignal, password: string) => reauthenticate(client, user.sub, password, { signal }),
      [client, user.sub],
    ),
  );
  const { run: runCheck, abort: abortCheck } = check;

  const settle = useCallback((outcome: Outcome) => {
    const resolve = pending.current;
    pending.current = null;
    resolve?.(outcome);
  }, []);

  // Leaving the page releases the call waiting for the dialog (useCall aborts the check under way).
  useEffect(() => () => settle(CANCELLED), [settle]);

  const guard = useCallback(
    async <T>(factor: K, call: () => Promise<T>): Promise<T> => {
      // Taken before the call: the control that starts one (a switch, Send Code) is often disabled while it runs.
      const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      try {
        return await call();
      } catch (error) {
        const failure = classifyFailure(error);
        if (failure.kind !== 'reauthentication_required') throw error;
        const outcome = await new Promise<Outcome>((resolve) => {
          settle(CANCELLED);
          pending.current = resolve;
          opener.current = focused;
          dispatch({ type: 'REQUIRED', factor, proof: failure.proof });
        });
        // Once only: a second refusal right after a confirmed password fails like any other.
        if (outcome.type === 'CONFIRMED') return call();
        if (outcome.type === 'ENDED') throw new ReauthenticationEnded(outcome.reason);
        throw outcome.error;
      }
    },
    [settle],
  );

  const submit = useCallback(
    async (password: string) => {
      dispatch({ type: 'SUBMIT' });
      const outcome = await runCheck(password);
      if (outcome.status === 'success') {
        dispatch({ type: 'CONFIRMED' });
        settle({ type: 'CONFIRMED' });
      } else if (outcome.status === 'error') {
        const { failure } = outcome;
        if (failure.kind === 'throttled' || (failure.kind === 'refused' && failure.status === 400)) {
          // A wrong password, or too many (with the wait): the text under the field, and the user tries again.
          dispatch({ type: 'REFUSED', error: failure.message });
        } else if (isApiError(outcome.error) && outcome.error.code === API_ERROR_CODES.noLocalPassword) {
          // The server cannot check passwords (Okta mode, from before `proof`): a new sign-in is the proof.
          dispatch({ type: 'PASSWORD_UNCHECKABLE' });
        } else {
          dispatch({ type: 'FAILED' });
          settle(
            failure.kind === 'refused' && failure.status === 409
              ? { type: 'ENDED', reason: 'STEP_UP_REQUIRED' }
              : { type: 'FAILED', error: outcome.error },
          );
        }
      }
    },
    [runCheck, settle],
  );

  /** 'Sign in again': the identity provider asks for the credentials, then the page comes back here. */
  const signIn = useCallback(async () => {
    if (!signInAgain) return;
    dispatch({ type: 'SIGN_IN' });
    try {
      await signInAgain({ returnTo: currentAddress() });
    } catch (error) {
      console.error('Sign-in could not start:', error);
      dispatch({ type: 'SIGN_IN_FAILED', error: SIGN_IN_AGAIN_FAILED });
    }
  }, [signInAgain]);

  const cancel = useCallback(() => {
    abortCheck();
    dispatch({ type: 'CANCEL' });
    settle(CANCELLED);
  }, [abortCheck, settle]);

  return {
    state,
    guard,
    submit: (password: string) => void submit(password),
    /** Starts the new sign-in; undefined where the page's host offers none (a mount() without it). */
    signInAgain: signInAgain ? () => void signIn() : undefined,
    cancel,
    /** The dialog has finished closing: the focus can go back. */
    closed: useCallback(() => dispatch({ type: 'CLOSED' }), []),
    /** The element that had the focus when the call that asked for the password started. */
    opener: useCallback(() => opener.current, []),
    focusReturned: useCallback(() => dispatch({ type: 'FOCUS_RETURNED' }), []),
  };
}
