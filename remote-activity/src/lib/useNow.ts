/** The time the lists measure "5 minutes ago" from: read once, then again each minute while the page is open. */
import { useEffect, useState } from 'react';

const MINUTE_MS = 60_000;

export function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), MINUTE_MS);
    return () => clearInterval(timer);
  }, []);
  return now;
}
