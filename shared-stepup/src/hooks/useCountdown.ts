import { useCallback, useEffect, useState } from 'react';

/** The email resend countdown (spec section 9), for the enrolment and the step-up email screen alike. */
export const RESEND_SECONDS = 30;

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

/** 'Resend ({n}s)' while counting down, then 'Resend Code' (spec section 9). */
export function resendLabel(remaining: number): string {
  return remaining > 0 ? `Resend (${remaining}s)` : 'Resend Code';
}
