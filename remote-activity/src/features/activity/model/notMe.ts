/**
 * "This wasn't me" on an event: a confirmation (every session ends, this one included; then sign in again and
 * change the password), the report, and its outcome. After it the holder's session is gone: the page hands them
 * to the sign-in, to land on the Password page.
 */

/**
 * - IDLE: nothing asked;
 * - CONFIRMING: the dialog, about `eventId`;
 * - REPORTING: the call is under way;
 * - FAILED: the report did not go through: the section says why (the holder may try again);
 * - SIGNED_OUT: every session ended; the page leaves for the sign-in.
 */
export type NotMeStatus = 'IDLE' | 'CONFIRMING' | 'REPORTING' | 'FAILED' | 'SIGNED_OUT';

export interface NotMeState {
  status: NotMeStatus;
  /** The event reported (the focus goes back to its button when the dialog is cancelled). */
  eventId?: string;
  /** FAILED: what the section says. */
  message?: string;
}

export type NotMeAction =
  | { type: 'ASK'; eventId: string }
  | { type: 'CANCEL' }
  | { type: 'CONFIRM' }
  | { type: 'REPORTED' }
  | { type: 'FAILED'; message: string };

export const initialNotMe: NotMeState = { status: 'IDLE' };

export function notMeReducer(state: NotMeState, action: NotMeAction): NotMeState {
  switch (state.status) {
    case 'IDLE':
    case 'FAILED':
      return action.type === 'ASK' ? { status: 'CONFIRMING', eventId: action.eventId } : state;
    case 'CONFIRMING':
      if (action.type === 'CONFIRM') return { ...state, status: 'REPORTING' };
      if (action.type === 'CANCEL')
        return { status: 'IDLE', ...(state.eventId ? { eventId: state.eventId } : {}) };
      return state;
    case 'REPORTING':
      if (action.type === 'REPORTED') return { ...state, status: 'SIGNED_OUT' };
      if (action.type === 'FAILED') return { ...state, status: 'FAILED', message: action.message };
      return state;
    case 'SIGNED_OUT':
      return state;
  }
}
