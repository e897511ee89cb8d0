/**
 * The Security page's default 2-step method (issue 22) as a reducer: IDLE → SAVING (one method at a time) → IDLE
 * with the new default, or with the refusal's text beside that method; a method turned off or removed is no default
 * any more (the server forgot it in the same change). The page starts it again from each step-up check's
 * `preferredMethod`.
 */
import type { PreferredMethod } from 'shared-auth';

export type PreferredMethodStatus = 'IDLE' | 'SAVING';

export interface PreferredMethodState {
  status: PreferredMethodStatus;
  /** The holder's default, as the server said it last; undefined: the fixed order. */
  preferred?: PreferredMethod;
  /** The method being made the default (SAVING), or the one whose refusal `error` is. */
  target?: PreferredMethod;
  /** The server's refusal, shown beside `target`'s control. */
  error?: string;
}

export type PreferredMethodAction =
  /** "Use by default" on a method. */
  | { type: 'CHOOSE'; method: PreferredMethod }
  | { type: 'CHOSEN'; method: PreferredMethod }
  /** Refused or failed: `error` is the text to show. */
  | { type: 'FAILED'; error: string }
  /** The call asked for step-up: the page runs it; nothing to show here. */
  | { type: 'STEP_UP' }
  /** A method was turned off or removed. */
  | { type: 'METHOD_GONE'; method: PreferredMethod };

export const initialPreferredMethod = (preferred?: PreferredMethod): PreferredMethodState => ({
  status: 'IDLE',
  ...(preferred ? { preferred } : {}),
});

const idle = (preferred: PreferredMethod | undefined): PreferredMethodState =>
  initialPreferredMethod(preferred);

export function preferredMethodReducer(
  state: PreferredMethodState,
  action: PreferredMethodAction,
): PreferredMethodState {
  switch (state.status) {
    case 'IDLE':
      if (action.type === 'CHOOSE' && action.method !== state.preferred)
        return { ...idle(state.preferred), status: 'SAVING', target: action.method };
      if (action.type === 'METHOD_GONE')
        return action.method === state.preferred ? idle(undefined) : idle(state.preferred);
      return state;
    case 'SAVING':
      if (action.type === 'CHOSEN') return idle(action.method);
      if (action.type === 'FAILED')
        return {
          ...idle(state.preferred),
          ...(state.target ? { target: state.target } : {}),
          error: action.error,
        };
      if (action.type === 'STEP_UP') return idle(state.preferred);
      // The method going while its choice is on its way: the server refuses it or forgets it with the change.
      if (action.type === 'METHOD_GONE' && action.method === state.preferred)
        return { status: 'SAVING', ...(state.target ? { target: state.target } : {}) };
      return state;
  }
}
