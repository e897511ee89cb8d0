import { useCallback, useEffect, useReducer, useRef } from 'react';
import { isApiError, useApiClient, useAuth } from 'shared-auth';
import type { FactorKind } from '../../factors/model/enrolment.js';
import { reauthenticate } from '../api/reauthenticate.js';
import {
  initialReauthenticationState,
  isReauthenticationRequired,
  ReauthenticationEnded,
  reauthenticationReducer,
} from '../model/reauthentication.js';

/** Runs a factor's call; when the server asks for the password first, asks for it and runs the call once more. */
export type ReauthenticationGuard = <T>(call: () => Promise<T>) => Promise<T>;

type Outcome =
  | { type: 'CONFIRMED' }
  | { type: 'ENDED'; reason: ReauthenticationEnded['reason'] }
  | { type: 'FAILED'; error: unknown };

const CANCELLED: Outcome = { type: 'ENDED', reason: 'CANCELLED' };

/**
 * "Confirm it's you" for the factors page: `guard(factor, call)` runs the call, and on 403
 * reauthentication_required opens the dialog and waits. Confirmed, the call runs again; cancelled, it rejects with
 * ReauthenticationEnded('CANCELLED') and the factor stays off; a 409 (the account has a factor by now) rejects with
 * ReauthenticationEnded('STEP_UP_REQUIRED'); any other failure of the check rejects with that failure.
 */
export function useReauthentication() {
  const { user } = useAuth();
  const client = useApiClient();
  const [state, dispatch] = useReducer(reauthenticationReducer, initialReauthenticationState);
  // The call waiting for the dialog, the element that had the focus when it started, and the check under way.
  const pending = useRef<((outcome: Outcome) => void) | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const checking = useRef<AbortController | null>(null);

  const settle = useCallback((outcome: Outcome) => {
    const resolve = pending.current;
    pending.current = null;
    resolve?.(outcome);
  }, []);

  // Leaving the page ends the check under way and releases the call waiting for it.
  useEffect(
    () => () => {
      checking.current?.abort();
      settle(CANCELLED);
    },
    [settle],
  );

  const guard = useCallback(
    async <T>(factor: FactorKind, call: () => Promise<T>): Promise<T> => {
      // Taken before the call: the control that starts one (a switch, Send Code) is often disabled while it runs.
      const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
      try {
        return await call();
      } catch (error) {
        if (!isReauthenticationRequired(error)) throw error;
        const outcome = await new Promise<Outcome>((resolve) => {
          settle(CANCELLED);
          pending.current = resolve;
          opener.current = focused;
          dispatch({ type: 'REQUIRED', factor });
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
      if (checking.current) return;
      const controller = new AbortController();
      checking.current = controller;
      dispatch({ type: 'SUBMIT' });
      try {
        await reauthenticate(client, user.sub, password, { signal: controller.signal });
        dispatch({ type: 'CONFIRMED' });
        settle({ type: 'CONFIRMED' });
      } catch (error) {
        if (controller.signal.aborted) return;
        if (isApiError(error) && (error.status === 400 || error.status === 429)) {
          // A wrong password, or too many: the server's text under the field, and the user tries again.
          dispatch({ type: 'REFUSED', error: error.message });
        } else {
          dispatch({ type: 'FAILED' });
          settle(
            isApiError(error) && error.status === 409
              ? { type: 'ENDED', reason: 'STEP_UP_REQUIRED' }
              : { type: 'FAILED', error },
          );
        }
      } finally {
        if (checking.current === controller) checking.current = null;
      }
    },
    [client, user.sub, settle],
  );

  const cancel = useCallback(() => {
    checking.current?.abort();
    checking.current = null;
    dispatch({ type: 'CANCEL' });
    settle(CANCELLED);
  }, [settle]);

  return {
    state,
    guard,
    submit: (password: string) => void submit(password),
    cancel,
    /** The dialog has finished closing: the focus can go back. */
    closed: useCallback(() => dispatch({ type: 'CLOSED' }), []),
    /** The element that had the focus when the call that asked for the password started. */
    opener: useCallback(() => opener.current, []),
    focusReturned: useCallback(() => dispatch({ type: 'FOCUS_RETURNED' }), []),
  };
}
