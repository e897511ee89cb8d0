import { useCallback, useEffect, useRef, useState } from 'react';
import { classifyFailure, type CallFailure } from './failure.js';

/** Where a call is: not started, under way, answered, or refused/failed. */
export type CallStatus = 'idle' | 'pending' | 'success' | 'error';

/** What one run of a call came to; 'aborted' when a newer run, abort() or the unmount ended it first. */
export type CallOutcome<T> =
  | { status: 'success'; data: T }
  | { status: 'error'; error: unknown; failure: CallFailure }
  | { status: 'aborted' };

export type CallState<T> =
  | { status: 'idle' }
  | { status: 'pending' }
  | { status: 'success'; data: T }
  | { status: 'error'; error: unknown; failure: CallFailure };

export interface UseCallOptions {
  /**
   * Abort the run under way when the component unmounts (default). False for a call whose outcome matters even
   * when nobody is looking (a password change the server may already have applied): it runs to its end, unread.
   */
  abortOnUnmount?: boolean;
}

const ABORTED = { status: 'aborted' } as const;

/**
 * One async call of a component: each run gets its own AbortSignal, aborted by the next run, by abort() and by the
 * unmount, and an aborted run's answer is never acted on. `run` resolves to the outcome (it never rejects), so the
 * caller dispatches it to its reducer; the returned state is for rendering (a spinner while 'pending').
 */
export function useCall<A extends unknown[], T>(
  call: (signal: AbortSignal, ...args: A) => Promise<T>,
  { abortOnUnmount = true }: UseCallOptions = {},
) {
  const [state, setState] = useState<CallState<T>>({ status: 'idle' });
  // The latest call (it closes over the client and the user), so run() stays the same function.
  const latest = useRef(call);
  useEffect(() => {
    latest.current = call;
  }, [call]);
  const controller = useRef<AbortController | null>(null);

  useEffect(
    () => () => {
      if (abortOnUnmount) controller.current?.abort();
    },
    [abortOnUnmount],
  );

  const run = useCallback(async (...args: A): Promise<CallOutcome<T>> => {
    controller.current?.abort();
    const current = new AbortController();
    controller.current = current;
    setState({ status: 'pending' });
    try {
      const data = await latest.current(current.signal, ...args);
      if (current.signal.aborted) return ABORTED;
      setState({ status: 'success', data });
      return { status: 'success', data };
    } catch (error) {
      if (current.signal.aborted) return ABORTED;
      const failure = classifyFailure(error);
      setState({ status: 'error', error, failure });
      return { status: 'error', error, failure };
    } finally {
      if (controller.current === current) controller.current = null;
    }
  }, []);

  const abort = useCallback(() => {
    controller.current?.abort();
    controller.current = null;
    setState({ status: 'idle' });
  }, []);

  return { ...state, run, abort };
}
