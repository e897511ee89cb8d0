/**
 * The Activity list: the events read so far, newest first, and the cursor of the next page ("Show more"). Okta
 * mode is a state of its own (UNAVAILABLE, the server's text), never an empty list: the page must not say "no
 * activity" when it cannot know.
 */
import type { ActivityEvent, ActivityPage } from 'shared-auth';

/**
 * - LOADING: the first page is being read (or again after "Try again");
 * - LOADED: the events show (none: "No activity in the last 90 days."), with "Show more" while `next` is set;
 * - UNAVAILABLE: Okta mode (501 activity_unavailable): the server's text;
 * - FAILED: the first page could not be read: why, and "Try again".
 */
export type ActivityListStatus = 'LOADING' | 'LOADED' | 'UNAVAILABLE' | 'FAILED';

/** The next page, once the first is shown: not asked, being read, or failed (its text beside "Show more"). */
export type MoreStatus = 'IDLE' | 'LOADING' | 'FAILED';

export interface ActivityListState {
  status: ActivityListStatus;
  events: readonly ActivityEvent[];
  /** The cursor of the next page; null on the last. */
  next: string | null;
  more: MoreStatus;
  /** UNAVAILABLE: the server's text; FAILED: what went wrong; LOADED with more FAILED: why "Show more" failed. */
  message?: string;
}

export type ActivityListAction =
  | { type: 'LOAD' }
  | { type: 'LOADED'; page: ActivityPage }
  | { type: 'UNAVAILABLE'; message: string }
  | { type: 'LOAD_FAILED'; message: string }
  | { type: 'MORE' }
  | { type: 'MORE_LOADED'; page: ActivityPage }
  | { type: 'MORE_FAILED'; message: string };

export const initialActivityList: ActivityListState = {
  status: 'LOADING',
  events: [],
  next: null,
  more: 'IDLE',
};

/** The events so far, then the new page's (an event already shown, as pages shift with new events, once). */
function appended(events: readonly ActivityEvent[], page: ActivityPage): ActivityEvent[] {
  const shown = new Set(events.map((event) => event.id));
  return [...events, ...page.events.filter((event) => !shown.has(event.id))];
}

export function activityListReducer(state: ActivityListState, action: ActivityListAction): ActivityListState {
  switch (state.status) {
    case 'LOADING':
      switch (action.type) {
        case 'LOADED':
          return { status: 'LOADED', events: action.page.events, next: action.page.next, more: 'IDLE' };
        case 'UNAVAILABLE':
          return { ...initialActivityList, status: 'UNAVAILABLE', message: action.message };
        case 'LOAD_FAILED':
          return { ...initialActivityList, status: 'FAILED', message: action.message };
        default:
          return state;
      }
    case 'LOADED':
      switch (action.type) {
        case 'MORE':
          return state.next !== null && state.more !== 'LOADING'
            ? { status: 'LOADED', events: state.events, next: state.next, more: 'LOADING' }
            : state;
        case 'MORE_LOADED':
          return state.more === 'LOADING'
            ? {
                status: 'LOADED',
                events: appended(state.events, action.page),
                next: action.page.next,
                more: 'IDLE',
              }
            : state;
        case 'MORE_FAILED':
          return state.more === 'LOADING' ? { ...state, more: 'FAILED', message: action.message } : state;
        case 'LOAD':
          return initialActivityList;
        default:
          return state;
      }
    case 'UNAVAILABLE':
    case 'FAILED':
      return action.type === 'LOAD' ? initialActivityList : state;
  }
}
