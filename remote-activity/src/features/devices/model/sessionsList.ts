/**
 * The Devices list: the account's live sessions as the server last gave them, and what signing one out reaches
 * (`portal` in Okta mode: only its access to this portal). A server that cannot list them (501) is a state of its
 * own (UNAVAILABLE, the server's text), never an empty list: the page must not say "no other devices" when it
 * cannot know.
 */
import type { AccountSession, AccountSessionList, SessionSignOutReach } from 'shared-auth';

/**
 * - LOADING: being read (the first time, after "Try again", or after a sign-out found a session gone);
 * - LOADED: the sessions show, the caller's own first;
 * - UNAVAILABLE: a server that cannot list them (501 sessions_unavailable): its text, and "Sign out everywhere";
 * - FAILED: the list could not be read: why, and "Try again".
 */
export type SessionsListStatus = 'LOADING' | 'LOADED' | 'UNAVAILABLE' | 'FAILED';

export interface SessionsListState {
  status: SessionsListStatus;
  sessions: readonly AccountSession[];
  /** What signing out one of them ends: the session (`session`), or only its access to this portal (`portal`). */
  reach: SessionSignOutReach;
  /** UNAVAILABLE: the server's text; FAILED: what went wrong. */
  message?: string;
}

export type SessionsListAction =
  | { type: 'LOAD' }
  | { type: 'LOADED'; list: AccountSessionList }
  | { type: 'UNAVAILABLE'; message: string }
  | { type: 'LOAD_FAILED'; message: string }
  /** A sign-out answered the list as it is now. */
  | { type: 'REPLACED'; list: AccountSessionList };

export const initialSessionsList: SessionsListState = { status: 'LOADING', sessions: [], reach: 'session' };

/** The caller's own session first, whatever order the answer had (the server sends it first already). */
const ordered = (list: AccountSessionList): AccountSession[] =>
  [...list.sessions].sort((a, b) => Number(b.current) - Number(a.current));

const loadedFrom = (list: AccountSessionList): SessionsListState => ({
  status: 'LOADED',
  sessions: ordered(list),
  reach: list.reach ?? 'session',
});

export function sessionsListReducer(state: SessionsListState, action: SessionsListAction): SessionsListState {
  switch (state.status) {
    case 'LOADING':
      switch (action.type) {
        case 'LOADED':
        case 'REPLACED':
          return loadedFrom(action.list);
        case 'UNAVAILABLE':
          return { status: 'UNAVAILABLE', sessions: [], reach: state.reach, message: action.message };
        case 'LOAD_FAILED':
          return { status: 'FAILED', sessions: [], reach: state.reach, message: action.message };
        case 'LOAD':
          return state;
      }
      break;
    case 'LOADED':
      if (action.type === 'LOAD') return { status: 'LOADING', sessions: state.sessions, reach: state.reach };
      if (action.type === 'REPLACED') return loadedFrom(action.list);
      return state;
    case 'UNAVAILABLE':
    case 'FAILED':
      return action.type === 'LOAD' ? { status: 'LOADING', sessions: [], reach: state.reach } : state;
  }
  return state;
}

/** The sessions other than the caller's own: what "Sign out of all other devices" ends. */
export const otherSessions = (state: SessionsListState): AccountSession[] =>
  state.sessions.filter((session) => !session.current);
