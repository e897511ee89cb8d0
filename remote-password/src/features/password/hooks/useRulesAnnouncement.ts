import { useEffect, useRef, useState } from 'react';
import {
  describeRuleChanges,
  resultsFromKey,
  resultsKey,
  type RuleResults,
} from '../model/rulesAnnouncement.js';

/** How long the user pauses typing before the live region speaks. */
export const ANNOUNCE_DELAY_MS = 500;

/**
 * The text of the polite live region under the checklist: once the user pauses typing, the rules whose state
 * changed since the last announcement and how many are met. Nothing is said while nothing changed.
 */
export function useRulesAnnouncement(results: RuleResults, delayMs = ANNOUNCE_DELAY_MS): string {
  const key = resultsKey(results);
  const announced = useRef(key);
  const [message, setMessage] = useState('');

  useEffect(() => {
    const timer = setTimeout(() => {
      const text = describeRuleChanges(resultsFromKey(announced.current), resultsFromKey(key));
      if (text === '') return;
      announced.current = key;
      setMessage(text);
    }, delayMs);
    return () => clearTimeout(timer);
  }, [key, delayMs]);

  return message;
}
