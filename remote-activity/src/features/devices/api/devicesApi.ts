/** The Devices calls (shared-auth's contract), one function each; every one takes the screen's `{ signal }`. */
import {
  apiCallers,
  type AccountSessionList,
  type ApiClient,
  type CallOptions,
  type SignedOutEverywhere,
} from 'shared-auth';

/** GET /api/v1/users/{sub}/sessions: the live sessions, the caller's own first (501 in Okta mode). */
export function getSessions(
  client: ApiClient,
  sub: string,
  options: CallOptions = {},
): Promise<AccountSessionList> {
  return apiCallers.sessions(client, { params: { sub } }, options);
}

/** DELETE /api/v1/users/{sub}/sessions/{id} (under step-up): the list without it. */
export function signOutSession(
  client: ApiClient,
  sub: string,
  id: string,
  options: CallOptions = {},
): Promise<AccountSessionList> {
  return apiCallers.sessionSignOut(client, { params: { sub, id } }, options);
}

/** POST /api/v1/users/{sub}/sessions/sign-out-others (under step-up): the list, this session alone. */
export function signOutOthers(
  client: ApiClient,
  sub: string,
  options: CallOptions = {},
): Promise<AccountSessionList> {
  return apiCallers.sessionsSignOutOthers(client, { params: { sub }, body: {} }, options);
}

/** POST /api/v1/users/{sub}/sessions/sign-out-everywhere (under step-up): every session ended, this one too. */
export function signOutEverywhere(
  client: ApiClient,
  sub: string,
  options: CallOptions = {},
): Promise<SignedOutEverywhere> {
  return apiCallers.sessionsSignOutEverywhere(client, { params: { sub }, body: {} }, options);
}
