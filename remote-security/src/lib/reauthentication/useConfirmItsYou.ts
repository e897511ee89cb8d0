/**
 * "Confirm it's you" for a feature of the Security page (the factors, the passkeys): one hook owns the dialog's
 * reducer, the props of ConfirmItsYouDialog, the focus given back when it closes, and the resume of an action
 * interrupted by 'Sign in again' (pendingAction.ts).
 */
import { useCallback, useEffect, useReducer, useRef } from 'react';
import { API_ERROR_CODES, isApiError, useApiClient, useAuth } from 'shared-auth';
import { classifyFailure, useCall } from 'shared-auth/async';
import { focusFirst } from '../focusFirst.js';
import type { ConfirmItsYouDialogProps } from './ConfirmItsYouDialog.js';
import {
  NO_RESUME,
  pendingActionStorageKey,
  pendingKeyFor,
  readPendingAction,
  resumeReducer,
  serializePendingAction,
  type ResumeAction,
  type ResumeState,
} from './pendingAction.js';
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

/** This tab's sessionStorage; null where the browser refuses it (then nothing is resumed, as before). */
function sessionStore(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

/**
 * Where the focus goes once the dialog has closed: the control whose call asked for the proof first, then these;
 * null to leave it (the feature's flow places it); 'LATER' while that call still runs (its control is disabled).
 */
export type FocusBack = readonly (HTMLElement | null)[] | null | 'LATER';

export interface ConfirmItsYouOptions<K extends string> {
  /** The feature's name in the remembered action ('factors', 'passkeys'). */
  feature: string;
  /** Whether a remembered key is one of this feature's (a module function: it must not change). */
  isKey: (key: string) => key is K;
  /** The feature has read its data: a remembered action can be finished now. */
  ready: boolean;
  /** Back from 'Sign in again': finishes the action that asked for it (run its call again), once. */
  onResume: (key: K) => void;
  /** Where the focus goes back for this key once the dialog has closed. */
  focusBack: (key: K) => FocusBack;
}

/**
 * `guard(key, call)` runs the call, and on 403 reauthentication_required opens the dialog and waits. With proof
 * 'password': confirmed, the call runs again (and `afterProof` is told, for a flow that must not go on by itself,
 * as a passkey's ceremony that needs a click); cancelled, it rejects with ReauthenticationEnded('CANCELLED'); a 409
 * has_active_factor (the account has a factor by now) rejects with ReauthenticationEnded('STEP_UP_REQUIRED'); a
 * 409 no_local_password turns the dialog into the sign-in-again view; any other failure of the check rejects with
 * that failure. With proof 'sign-in' (Okta mode) the dialog offers a new sign-in (`signInAgain`): the key is
 * remembered, the page leaves and comes back, and `onResume(key)` finishes the action once the feature is ready.
 */
export function useConfirmItsYou<K extends string>({
  feature,
  isKey,
  ready,
  onResume,
  focusBack,
}: ConfirmItsYouOptions<K>) {
  const { user, signInAgain } = useAuth();
  const { sub } = user;
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
  const { run: runCheck, abort: abortCheck } = useCall(
    useCallback(
      (signal: AbortSignal, password: string) => reauthenticate(client, sub, password, { signal }),
      [client, sub],
    ),
  );

  const settle = useCallback((outcome: Outcome) => {
    const resolve = pending.current;
    pending.current = null;
    resolve?.(outcome);
  }, []);

  // Leaving the page releases the call waiting for the dialog (useCall aborts the check under way).
  useEffect(() => () => settle(CANCELLED), [settle]);

  const guard = useCallback(
    async <T>(key: K, call: () => Promise<T>, afterProof?: () => void): Promise<T> => {
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
          dispatch({ type: 'REQUIRED', factor: key, proof: failure.proof });
        });
        if (outcome.type === 'ENDED') throw new ReauthenticationEnded(outcome.reason);
        if (outcome.type === 'FAILED') throw outcome.error;
        afterProof?.();
        // Once only: a second refusal right after a confirmed password fails like any other.
        return call();
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

  const storageKey = pendingActionStorageKey(sub);
  const forget = useCallback(() => sessionStore()?.removeItem(storageKey), [storageKey]);

  /** 'Sign in again': remembers what asked for it, then the identity provider asks for the credentials. */
  const { factor: asking } = state;
  const signIn = useCallback(async () => {
    if (!signInAgain || asking === null) return;
    dispatch({ type: 'SIGN_IN' });
    try {
      sessionStore()?.setItem(
        storageKey,
        serializePendingAction({ feature, key: asking, sub, savedAt: Date.now() }),
      );
    } catch {
      // Storage full or refused: the sign-in still proves it; the holder starts the action again.
    }
    try {
      await signInAgain({ returnTo: currentAddress() });
    } catch (error) {
      console.error('Sign-in could not start:', error);
      // Still on the page: a reload must not finish an action the holder may yet cancel.
      forget();
      dispatch({ type: 'SIGN_IN_FAILED', error: SIGN_IN_AGAIN_FAILED });
    }
  }, [signInAgain, asking, storageKey, feature, sub, forget]);

  const cancel = useCallback(() => {
    abortCheck();
    dispatch({ type: 'CANCEL' });
    settle(CANCELLED);
  }, [abortCheck, settle]);

  // Back from 'Sign in again': this feature's remembered action, read once on load; anything stale goes.
  const [resume, dispatchResume] = useReducer(
    resumeReducer as (state: ResumeState<K>, action: ResumeAction<K>) => ResumeState<K>,
    NO_RESUME as ResumeState<K>,
  );
  useEffect(() => {
    const store = sessionStore();
    const raw = store?.getItem(storageKey) ?? null;
    if (raw === null) return;
    const now = Date.now();
    if (!readPendingAction(raw, sub, now)) store?.removeItem(storageKey);
    const key = pendingKeyFor(raw, feature, isKey, sub, now);
    if (key !== null) dispatchResume({ type: 'FOUND', key });
  }, [storageKey, sub, feature, isKey]);
  useEffect(() => {
    if (resume.status === 'PENDING' && ready) dispatchResume({ type: 'READY' });
  }, [resume.status, ready]);
  // Each resume once, even if the effect runs again (a new onResume, React's development double run).
  const resumed = useRef(false);
  useEffect(() => {
    if (resume.status !== 'RESUMING' || resumed.current) return;
    resumed.current = true;
    forget();
    onResume(resume.key);
  }, [resume, onResume, forget]);

  // The dialog has closed: the focus goes back, once the call that asked for it allows.
  const { returnFocus } = state;
  useEffect(() => {
    if (!returnFocus) return;
    const targets = asking === null ? null : focusBack(asking);
    if (targets === 'LATER') return;
    if (targets) focusFirst(opener.current, ...targets);
    dispatch({ type: 'FOCUS_RETURNED' });
  }, [returnFocus, asking, focusBack]);

  const dialog: ConfirmItsYouDialogProps = {
    status: state.status,
    error: state.error,
    onConfirm: (password: string) => void submit(password),
    // Undefined where the page's host offers no new sign-in (a mount() without it).
    onSignInAgain: signInAgain ? () => void signIn() : undefined,
    // Nothing is remembered by then: a sign-in that could not start forgot it, and a redirect cannot be cancelled.
    onCancel: cancel,
    afterClose: () => dispatch({ type: 'CLOSED' }),
  };

  return { state, guard, dialog };
}
