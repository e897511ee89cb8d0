import { STEP_UP_TTL_MS } from 'shared-auth';
import { isStepUpFlowState, type StepUpFlowState } from './stepUpFlow.js';

/** The local-storage key of the step-up flow (spec section 4). */
export const STEP_UP_STORAGE_KEY = 'stepUp';

interface Stored {
  value: StepUpFlowState;
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

/** Keeps the flow state for 5 minutes. CHALLENGE_ERROR is not kept: a reload starts over instead. */
export function saveStepUpState(state: StepUpFlowState, now = Date.now()): void {
  const store = storage();
  if (!store) return;
  if (state === 'CHALLENGE_ERROR') {
    store.removeItem(STEP_UP_STORAGE_KEY);
    return;
  }
  const stored: Stored = { value: state, expiry: now + STEP_UP_TTL_MS };
  store.setItem(STEP_UP_STORAGE_KEY, JSON.stringify(stored));
}

/** The stored flow state, or undefined when missing, unreadable or expired (an expired one is removed). */
export function loadStepUpState(now = Date.now()): StepUpFlowState | undefined {
  const store = storage();
  const text = store?.getItem(STEP_UP_STORAGE_KEY);
  if (!store || !text) return undefined;
  try {
    const stored = JSON.parse(text) as Partial<Stored>;
    if (typeof stored.expiry === 'number' && stored.expiry > now && isStepUpFlowState(stored.value)) {
      return stored.value;
    }
  } catch {
    // fall through: unreadable is the same as missing
  }
  store.removeItem(STEP_UP_STORAGE_KEY);
  return undefined;
}

export function clearStepUpState(): void {
  storage()?.removeItem(STEP_UP_STORAGE_KEY);
}
