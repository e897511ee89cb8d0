/**
 * The action "Confirm it's you" interrupted, remembered across 'Sign in again': the page leaves for the identity
 * provider and loads anew when it comes back, so what the holder had started (turn on the authenticator app, set
 * up email, add a passkey) is kept in sessionStorage, for this tab only, and finished once after the return.
 * Pure functions over the stored record, and the resume's reducer: the hook (useConfirmItsYou) does the effects.
 */

/** What was started: the feature that owns it, and that feature's key of it (a factor, 'passkey'). */
export interface PendingAction {
  feature: string;
  key: string;
  /** The holder's sub: another account signed in meanwhile must not finish it. */
  sub: string;
  /** When 'Sign in again' was pressed (ms since the epoch). */
  savedAt: number;
}

/** A return later than this is not the holder finishing what they started: it is forgotten. */
export const PENDING_ACTION_MAX_AGE_MS = 10 * 60 * 1000;

export const pendingActionStorageKey = (sub: string) => `portal.security.pendingAction.${sub}`;

export function serializePendingAction(action: PendingAction): string {
  return JSON.stringify(action);
}

/**
 * The stored record, when it is one of this holder's and fresh: null for nothing, unreadable text, another sub,
 * or a record older than PENDING_ACTION_MAX_AGE_MS (or from the future: a clock put back).
 */
export function readPendingAction(raw: string | null, sub: string, now: number): PendingAction | null {
  if (raw === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { feature, key, sub: owner, savedAt } = value as Record<string, unknown>;
  if (typeof feature !== 'string' || typeof key !== 'string' || typeof savedAt !== 'number') return null;
  if (owner !== sub) return null;
  const age = now - savedAt;
  if (!(age >= 0 && age <= PENDING_ACTION_MAX_AGE_MS)) return null;
  return { feature, key, sub, savedAt };
}

/**
 * One feature's resume:
 * - NONE: nothing to finish (or it was cancelled, or already finished);
 * - PENDING: found on load, for this feature; waits until the feature is ready (its data read);
 * - RESUMING: handed to the feature, once; the record is gone.
 */
export type ResumeState<K extends string> =
  { status: 'NONE' } | { status: 'PENDING'; key: K } | { status: 'RESUMING'; key: K };

export type ResumeAction<K extends string> =
  /** The page loaded with this feature's record. */
  | { type: 'FOUND'; key: K }
  /** The feature is ready: it finishes the action now. */
  | { type: 'READY' };

export const NO_RESUME: ResumeState<never> = { status: 'NONE' };

export function resumeReducer<K extends string>(
  state: ResumeState<K>,
  action: ResumeAction<K>,
): ResumeState<K> {
  switch (state.status) {
    case 'NONE':
      return action.type === 'FOUND' ? { status: 'PENDING', key: action.key } : state;
    case 'PENDING':
      return action.type === 'READY' ? { status: 'RESUMING', key: state.key } : state;
    case 'RESUMING':
      // Once only: a second record or readiness does not run it again.
      return state;
  }
}

/**
 * The key this feature should finish, from the stored text: null when the record is not this holder's, stale,
 * another feature's, or a key the feature does not know (a record from another build of the page).
 */
export function pendingKeyFor<K extends string>(
  raw: string | null,
  feature: string,
  isKey: (key: string) => key is K,
  sub: string,
  now: number,
): K | null {
  const action = readPendingAction(raw, sub, now);
  return action && action.feature === feature && isKey(action.key) ? action.key : null;
}
