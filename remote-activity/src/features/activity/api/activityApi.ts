/** The Activity calls (shared-auth's contract), one function each; every one takes the screen's `{ signal }`. */
import {
  apiCallers,
  type ActivityPage,
  type ApiClient,
  type CallOptions,
  type SignedOutEverywhere,
} from 'shared-auth';

/**
 * GET /api/v1/users/{sub}/activity: a page of the last 90 days' events, newest first; `before` is the `next` of
 * the page before (none: the newest). 501 in Okta mode.
 */
export function getActivity(
  client: ApiClient,
  sub: string,
  before: string | undefined,
  options: CallOptions = {},
): Promise<ActivityPage> {
  return apiCallers.activity(client, { params: { sub }, query: before ? { before } : {} }, options);
}

/**
 * POST /api/v1/users/{sub}/activity/not-me: "This wasn't me" on an event. Every session of the account ends, this
 * one included, and the holder is told by mail; the page then signs in again and changes the password.
 */
export function reportNotMe(
  client: ApiClient,
  sub: string,
  eventId: string,
  options: CallOptions = {},
): Promise<SignedOutEverywhere> {
  return apiCallers.activityNotMe(client, { params: { sub }, body: { eventId } }, options);
}
