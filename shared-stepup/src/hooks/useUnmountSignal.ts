import { useCallback, useEffect, useRef } from 'react';

/**
 * A signal for the calls a component starts, aborted when it unmounts (a dialog closed mid-call), so the request
 * stops and its answer is not acted on. Made in the effect, so React's development double mount gets a fresh one.
 */
export function useUnmountSignal(): () => AbortSignal {
  const controller = useRef<AbortController | null>(null);
  useEffect(() => {
    const current = new AbortController();
    controller.current = current;
    return () => current.abort();
  }, []);
  return useCallback(() => {
    controller.current ??= new AbortController();
    return controller.current.signal;
  }, []);
}
