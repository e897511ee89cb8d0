/**
 * "This wasn't me" on an event of the activity (issue 22, POST /api/v1/users/:sub/activity/not-me): the holder
 * reports one of their own events, and every session of the account ends, the caller's too, with a notice and an
 * activity event. No step-up: it only takes access away, and a holder whose factor was taken must still be able
 * to use it. Embedded mode: the event must be one of the caller's (404 otherwise, another account's id answers
 * the same), and the sign-out, the notice and the event are one transaction. Okta mode: the org ends every
 * session with its OAuth tokens (first: no transaction spans a call to Okta), then the account's "not before"
 * refuses every access token issued so far, the listed sign-ins end and the notice is queued; the org's System Log
 * holds the events, so the id is taken as the page showed it (the portal keeps no copy to check it against).
 */
import { ACTIVITY_RETENTION_DAYS, API_ERRORS, type SignedOutEverywhere } from 'shared-auth/contract';
import type { ActivityLog } from '../activity/log.js';
import type { Actor } from '../factors/actor.js';
import { refusal } from '../http/errors.js';
import type { Outbox } from '../notifications/outbox.js';
import type { RevokedSessions } from '../storage/provider.js';
import type { Storage } from '../storage/index.js';
import { reportedNotMeMail } from './not-me-mails.js';

export const NOT_ME_EVENT_NOT_FOUND_ERROR =
  "This event is not in your account's activity. Reload the page and try again.";

const DAY_MS = 24 * 60 * 60 * 1000;
/** No step-up grant is kept: every one of the account's goes. */
const KEEP_NO_GRANT = '';

/**
 * Ends every session of the account in `tx` (embedded): the provider's sessions with their Devices rows, every
 * grant chain with its refresh tokens and codes (those of no live session too), the sign-ins in progress past the
 * password, and every step-up grant. Their access tokens are refused from the next call. Answers how many of the
 * provider's records ended (0: the account had nothing signed in).
 */
export async function endEverySession(tx: Storage, userId: string): Promise<number> {
  const count = ({ sessions, grants, tokens, interactions }: RevokedSessions) =>
    sessions + grants + tokens + interactions;
  const sessions = await tx.provider.endSessions(userId, { except: null });
  const rest = await tx.provider.endAccountGrantsKeepingSession(userId, undefined);
  await tx.grants.endAllCarrying(userId, KEEP_NO_GRANT, undefined);
  return count(sessions) + count(rest);
}

export interface NotMeReportOptions {
  /** Embedded mode: the portal keeps the sessions and the events. */
  embedded: boolean;
  storage: Storage;
  activity: ActivityLog;
  mail: Pick<Outbox, 'queueMessage'>;
  /** PUBLIC_URL: the notice links to the Password and Security pages. */
  portalUrl: string;
  now: () => number;
  /** Okta mode: ends every session of the account at the org, with its OAuth tokens. */
  endAllSessionsAtOrg?: ((userId: string) => Promise<void>) | undefined;
}

export class NotMeReport {
  constructor(private readonly options: NotMeReportOptions) {}

  /** Reports `eventId` as not the holder's: every session of the account ends, the caller's included. */
  async report(actor: Actor, eventId: string): Promise<SignedOutEverywhere> {
    const { embedded, storage, activity, now, endAllSessionsAtOrg } = this.options;
    const { user } = actor;
    if (embedded) {
      await storage.transaction(async (tx) => {
        const event = await tx.activity.find(user.id, eventId, now() - ACTIVITY_RETENTION_DAYS * DAY_MS);
        if (!event) throw refusal(API_ERRORS.notFound, NOT_ME_EVENT_NOT_FOUND_ERROR);
        // A parallel report with the same token, serialised behind the first, finds nothing left: told once.
        if ((await endEverySession(tx, user.id)) === 0) return;
        await this.notify(tx, actor);
        await activity.record(
          tx.activity,
          { userId: user.id, kind: 'reported-not-me', detail: event.kind },
          actor,
        );
      });
      return { status: 'SIGNED_OUT' };
    }
    if (!endAllSessionsAtOrg) throw new Error('Okta mode needs the org to end the sessions');
    await endAllSessionsAtOrg(user.id);
    await storage.transaction(async (tx) => {
      // Every access token of the account issued until now, the caller's too, is refused on every instance.
      await tx.tokenNotBefore.set(user.id, now(), undefined);
      // The Devices list then holds none of the ended sign-ins (devices/org-sessions.ts).
      await tx.orgSessions.end(user.id, { except: null }, now());
      await tx.grants.endAllCarrying(user.id, KEEP_NO_GRANT, undefined);
      await this.notify(tx, actor);
    });
    return { status: 'SIGNED_OUT' };
  }

  private notify(tx: Storage, actor: Actor): Promise<void> {
    const { mail, portalUrl, now } = this.options;
    return mail.queueMessage(actor.user, reportedNotMeMail(portalUrl, now(), actor.userAgent), tx.outbox);
  }
}
