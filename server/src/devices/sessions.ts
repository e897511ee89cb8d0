/**
 * Devices (issue 22): the account's live sign-in sessions and signing them out. Embedded mode: the embedded
 * provider's sessions, each described once at sign-in (`signedIn`, written in the provider's transaction that saves
 * the signed-in session) with its "last active" moved at most once a minute (`seen`, from the API's auth hook).
 * Ending sessions reuses the path of a sign-out: the provider's session, grants, refresh tokens and codes go, the
 * step-up grants and the Devices row with them (storage/provider.ts `endSessions`), so their access tokens are
 * refused by the next call's session check; the notice and the activity event are queued in the same transaction.
 * Okta mode: the org's sessions, which its API does not list: the portal lists the Okta sign-ins whose tokens
 * reached its API (devices/org-sessions.ts, recorded by `seen`); signing one out (or all others) refuses its tokens
 * at the portal's API, the Okta session itself stays; "sign out everywhere" ends them all at the org (the backend's
 * `endAllSessions`), with the account's "not before" refusing every access token issued until then. */
import {
  API_ERRORS,
  type AccountSessionList,
  type SessionSignOutScope,
  type SignedOutEverywhere,
} from 'shared-auth/contract';
import type { ActivityLog } from '../activity/log.js';
import { SIGN_IN_SEEN_RESOLUTION_MS } from '../auth/org-sign-in.js';
import type { VerifiedToken } from '../auth/verifier.js';
import type { ClientOrigin } from '../clients/describe.js';
import type { Sql } from '../db/sql.js';
import type { Actor } from '../factors/actor.js';
import { recordActivityOf } from '../factors/activity.js';
import { refusal } from '../http/errors.js';
import type { AccountEvent, Notifier } from '../notifications/types.js';
import { SqlAccountSessionStore } from '../storage/account-sessions.js';
import type { Storage } from '../storage/index.js';
import { hashedId } from '../storage/provider.js';
import {
  listOrgSessions,
  ORG_SESSION_RETENTION_MS,
  orgSessionSeen,
  orgSignInHashOf,
} from './org-sessions.js';
import { sessionView, thisDeviceFirst } from './session-view.js';

/** "Last active" is kept to this resolution: at most one write per session per minute, whatever the calls. */
export const LAST_ACTIVE_RESOLUTION_MS = SIGN_IN_SEEN_RESOLUTION_MS;
/** The most sessions one instance remembers having touched (then it forgets them all; the update's own check stays). */
const TOUCHED_MAX = 10_000;

export const SESSION_NOT_FOUND_ERROR =
  'This session is not signed in to your account. It may have ended already.';
export const CURRENT_SESSION_ERROR = 'This is the device you are using. To sign out of it, use Logout.';
export const SESSIONS_UNAVAILABLE_ERROR =
  "Your organization's sign-in service keeps this account's sessions; they cannot be listed or signed out one by one here. You can sign out everywhere.";

/** Which sessions the list holds: the embedded provider's, or (Okta mode) the org's sign-ins the API saw. */
export type DeviceSessionsKind = 'provider' | 'org';

export interface DeviceSessionsOptions {
  kind: DeviceSessionsKind;
  storage: Storage;
  activity: ActivityLog;
  notifier: Notifier;
  now: () => number;
  /** The step-up a sensitive change needs (the passkeys' rule: the factors' grant, and Okta's passkeys). */
  requireStepUp: (actor: Actor) => Promise<void>;
  /** Okta mode: ends every session of the account at the org, with its OAuth tokens. */
  endAllSessionsAtOrg?: ((userId: string) => Promise<void>) | undefined;
}

const epochSeconds = () => Math.floor(Date.now() / 1000);

export class DeviceSessions {
  /** Per instance: when this instance last moved each session's "last active" (by the session's hash). */
  private readonly touched = new Map<string, number>();

  constructor(private readonly options: DeviceSessionsOptions) {}

  private get embedded(): boolean {
    return this.options.kind === 'provider';
  }

  /**
   * The write that records a session's sign-in, described now (before the provider's transaction: no parsing
   * under the write lock), for the provider's save of the signed-in session; undefined in Okta mode.
   */
  signedIn(
    origin: ClientOrigin,
  ): ((tx: Sql, accountId: string, sessionUid: string) => Promise<void>) | undefined {
    if (!this.embedded) return undefined;
    const described = this.options.activity.describe(origin);
    const signedInAt = this.options.now();
    return async (tx, accountId, sessionUid) => {
      await new SqlAccountSessionStore(tx).record({
        ...described,
        userId: accountId,
        sessionUid,
        signedInAt,
      });
    };
  }

  /**
   * The caller's token was accepted by the API: its session's "last active" moves to now when it is a minute old or
   * more; in Okta mode the first call of a sign-in also records it, described from this call. This instance asks
   * the database at most once a minute per session (a page's calls in between write nothing), and the write itself
   * refuses a move within the minute (and, Okta, a second row: one statement), so instances together write once a
   * minute at most.
   */
  async seen(token: VerifiedToken, origin: ClientOrigin): Promise<void> {
    const { sid } = token.claims;
    const key = this.embedded
      ? typeof sid === 'string' && sid !== ''
        ? hashedId(sid)
        : undefined
      : orgSignInHashOf(token);
    if (key === undefined) return;
    const now = this.options.now();
    const last = this.touched.get(key);
    if (last !== undefined && now - last < LAST_ACTIVE_RESOLUTION_MS) return;
    if (this.touched.size >= TOUCHED_MAX) this.touched.clear();
    this.touched.set(key, now);
    const notAfter = now - LAST_ACTIVE_RESOLUTION_MS;
    if (this.embedded) {
      if (typeof sid === 'string') await this.options.storage.accountSessions.touch(sid, now, notAfter);
      return;
    }
    const row = orgSessionSeen(token, this.options.activity.describe(origin), now);
    if (row) await this.options.storage.orgSessions.seen(row, now, notAfter);
  }

  /** The account's live sessions, the caller's first (`current`), then the most recently active. */
  async list(token: VerifiedToken): Promise<AccountSessionList> {
    return this.listOf(this.options.storage, token);
  }

  private async listOf(within: Storage, token: VerifiedToken): Promise<AccountSessionList> {
    if (!this.embedded) {
      return { sessions: await listOrgSessions(within, token, this.options.now()), reach: 'portal' };
    }
    const { sid } = token.claims;
    const current = typeof sid === 'string' && sid !== '' ? hashedId(sid) : undefined;
    const rows = await within.accountSessions.listLive(token.userId, epochSeconds());
    const sessions = rows.map((row) => sessionView(row, row.sessionUidHash === current, row.lastActiveAt));
    return { sessions: thisDeviceFirst(sessions), reach: 'session' };
  }

  /**
   * Signs out one other session of the caller's (under step-up): 404 for an id that is not one of the caller's
   * live sessions (another account's answers the same), 409 for the caller's own (Logout is for that). Answers the
   * list as it is now. Okta mode: the sign-in's tokens are refused at the API from now (its Okta session stays).
   */
  async signOut(actor: Actor, token: VerifiedToken, id: string): Promise<AccountSessionList> {
    // Step-up first, as every change: a caller without it learns nothing of the id.
    await this.options.requireStepUp(actor);
    const { user } = actor;
    const now = this.options.now();
    return this.options.storage.transaction(async (tx) => {
      if (!this.embedded) {
        const session = await tx.orgSessions.findLive(user.id, id, now - ORG_SESSION_RETENTION_MS);
        if (!session) throw refusal(API_ERRORS.notFound, SESSION_NOT_FOUND_ERROR);
        if (session.signInHash === orgSignInHashOf(token)) {
          throw refusal(API_ERRORS.currentSession, CURRENT_SESSION_ERROR);
        }
        // Parallel calls: the first ends it and is noticed; the others end nothing and notify nothing.
        const ended = await tx.orgSessions.end(user.id, { only: session.id }, now);
        if (ended > 0) await this.recorded(tx, actor, 'one', ended);
        return this.listOf(tx, token);
      }
      const session = await tx.accountSessions.findLive(user.id, id, epochSeconds());
      if (!session) throw refusal(API_ERRORS.notFound, SESSION_NOT_FOUND_ERROR);
      if (actor.sessionUid !== undefined && session.sessionUidHash === hashedId(actor.sessionUid)) {
        throw refusal(API_ERRORS.currentSession, CURRENT_SESSION_ERROR);
      }
      const ended = await tx.provider.endSessions(user.id, { only: session.sessionUidHash });
      if (ended.sessions > 0) await this.recorded(tx, actor, 'one', ended.sessions);
      return this.listOf(tx, token);
    });
  }

  /**
   * Signs out every session of the caller's but its own (under step-up). Parallel calls are serialised by the
   * write transaction: the first ends them and is noticed, the others find nothing left and notify nothing. Okta
   * mode: the sign-ins the portal saw, but the caller's (one it never saw shows in the list at its first call).
   */
  async signOutOthers(actor: Actor, token: VerifiedToken): Promise<AccountSessionList> {
    await this.options.requireStepUp(actor);
    const { user } = actor;
    const now = this.options.now();
    return this.options.storage.transaction(async (tx) => {
      if (!this.embedded) {
        const ended = await tx.orgSessions.end(user.id, { except: orgSignInHashOf(token) ?? null }, now);
        if (ended > 0) await this.recorded(tx, actor, 'others', ended);
        return this.listOf(tx, token);
      }
      const keep = actor.sessionUid === undefined ? null : hashedId(actor.sessionUid);
      const ended = await tx.provider.endSessions(user.id, { except: keep });
      if (ended.sessions > 0) await this.recorded(tx, actor, 'others', ended.sessions);
      return this.listOf(tx, token);
    });
  }

  /**
   * Signs out every session of the account, the caller's too (under step-up). Embedded: the provider's sessions.
   * Okta: the org ends them with their OAuth tokens (first: no transaction spans a call to Okta), then the
   * account's "not before" refuses every access token issued so far, the caller's included, on every instance.
   */
  async signOutEverywhere(actor: Actor): Promise<SignedOutEverywhere> {
    await this.options.requireStepUp(actor);
    const { user } = actor;
    const { endAllSessionsAtOrg, now } = this.options;
    if (this.embedded) {
      await this.options.storage.transaction(async (tx) => {
        const ended = await tx.provider.endSessions(user.id, { except: null });
        if (ended.sessions > 0) await this.recorded(tx, actor, 'everywhere', ended.sessions);
      });
      return { status: 'SIGNED_OUT' };
    }
    if (!endAllSessionsAtOrg) throw refusal(API_ERRORS.sessionsUnavailable, SESSIONS_UNAVAILABLE_ERROR);
    await endAllSessionsAtOrg(user.id);
    await this.options.storage.transaction(async (tx) => {
      await tx.tokenNotBefore.set(user.id, now(), undefined);
      // The list then holds none of them (their tokens are refused by the "not before" already).
      await tx.orgSessions.end(user.id, { except: null }, now());
      // Every step-up grant of the account ends (no key is ''): the sessions they belonged to did.
      await tx.grants.endAllCarrying(user.id, '', undefined);
      await this.recorded(tx, actor, 'everywhere', undefined);
    });
    return { status: 'SIGNED_OUT' };
  }

  /** The notice and the activity event of a sign-out from the list, in its transaction. */
  private async recorded(
    tx: Storage,
    actor: Actor,
    scope: SessionSignOutScope,
    count: number | undefined,
  ): Promise<void> {
    // Okta mode's one or others: only their use of this portal ended, and the notice says so.
    const portalOnly = !this.embedded && scope !== 'everywhere';
    const event: AccountEvent = {
      type: 'sessions-signed-out',
      scope,
      count,
      ...(portalOnly ? { reach: 'portal' as const } : {}),
    };
    await this.options.notifier.queue(
      actor.user,
      event,
      { userAgent: actor.userAgent, at: this.options.now() },
      tx.outbox,
    );
    await recordActivityOf(this.options.activity, tx, actor.user.id, event, actor);
  }

  /**
   * Deletes the rows of sessions that went: embedded, those whose provider session expired; Okta, the sign-ins not
   * seen for the retention window, ended or not. Returns how many.
   */
  prune(): Promise<number> {
    if (this.embedded) return this.options.storage.accountSessions.pruneOrphans();
    return this.options.storage.orgSessions.prune(this.options.now() - ORG_SESSION_RETENTION_MS);
  }
}
