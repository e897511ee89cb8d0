import { STEP_UP_TTL_MS } from 'shared-auth';
import { isStepUpFlowStatus, type StepUpFlowStatus } from './stepUpFlow.js';

/**
 * The local-storage key of a user's step-up flow (spec section 4: "a step-up key"). It names the user, so another
 * user signing in on the same browser never resumes this user's screen.
 */
export function stepUpStorageKey(sub: string): string {
  return `stepUp:${sub}`;
}

/** The key before it named the user: removed on sight, never resumed (whose it was is unknown). */
export const LEGACY_STEP_UP_STORAGE_KEY = 'stepUp';

interface Stored {
  value: StepUpFlowStatus;
  /** ms since the epoch */
  expiry: number;
}

function storage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    // Storage can be blocked (privacy settings); the flow then simply starts over.
    return undefined;
  }
}

/** Keeps the user's flow state for 5 minutes. CHALLENGE_ERROR is not kept: a reload starts over instead. */
export function saveStepUpState(sub: string, state: StepUpFlowStatus, now = Date.now()): void {
  const store = storage();
  if (!store) return;
  if (state === 'CHALLENGE_ERROR') {
    store.removeItem(stepUpStorageKey(sub));
    return;
  }
  const stored: Stored = { value: state, expiry: now + STEP_UP_TTL_MS };
  store.setItem(stepUpStorageKey(sub), JSON.stringify(stored));
}

/** The user's stored flow state, or undefined when missing, unreadable or expired (an expired one is removed). */
export function loadStepUpState(sub: string, now = Date.now()): StepUpFlowStatus | undefined {
  const store = storage();
  if (!store) return undefined;
  store.removeItem(LEGACY_STEP_UP_STORAGE_KEY);
  const key = stepUpStorageKey(sub);
  const text = store.getItem(key);
  if (!text) return undefined;
  try {
    const stored = JSON.parse(text) as Partial<Stored>;
    if (typeof stored.expiry === 'number' && stored.expiry > now && isStepUpFlowStatus(stored.value)) {
      return stored.value;
    }
  } catch {
    // fall through: unreadable is the same as missing
  }
  store.removeItem(key);
  return undefined;
}

export function clearStepUpState(sub: string): void {
  storage()?.removeItem(stepUpStorageKey(sub));
}
