import { useCallback, useEffect, useState } from 'react';

/** Counts down whole seconds from `start(seconds)` to 0, one tick a second. */
export function useCountdown() {
  const [remaining, setRemaining] = useState(0);
  const running = remaining > 0;
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(() => setRemaining((value) => Math.max(0, value - 1)), 1000);
    return () => clearInterval(timer);
  }, [running]);
  const start = useCallback((seconds: number) => setRemaining(seconds), []);
  return { remaining, start };
}

/** The email resend countdown (spec section 9). */
export const RESEND_SECONDS = 30;

/** 'Send Code' before the first send, 'Resend ({n}s)' while counting down, then 'Resend Code'. */
export function sendCodeLabel(sent: boolean, remaining: number): string {
  if (!sent) return 'Send Code';
  return remaining > 0 ? `Resend (${remaining}s)` : 'Resend Code';
}
