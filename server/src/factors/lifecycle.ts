/**
 * The factors' lifecycle: set up (enrol, activate), turn on and off, remove — what /api/multifactor uses. Each
 * change ends the account's other sessions and queues its notice, under the last-factor rule; what differs by
 * kind is the kind's module (identity/kinds/).
 */
import {
  API_ERRORS,
  FACTOR_LABELS,
  MIN_ACTIVE_FACTORS_TO_TURN_OFF,
  type FactorDetailsResponse,
  type FactorName,
  type FactorStatusResponse,
} from 'shared-auth/contract';
import type { ActivityLog } from '../activity/log.js';
import type { AccountSessions } from '../auth/sessions.js';
import { refusal } from '../http/errors.js';
import type { IdentityFactor, IdentityFactors } from '../identity/factors.js';
import type { FactorEnrolment } from '../identity/kinds/kind.js';
import { kindOf } from '../identity/kinds/registry.js';
import type { AccountEvent, Notifier } from '../notifications/types.js';
import type { Storage } from '../storage/index.js';
import { recordActivityOf } from './activity.js';
import type { Actor } from './actor.js';
import type { CodeAttempts } from './code-attempts.js';
import type { AddedMethod, NotMeLinkIssuer } from './not-me-links.js';
import { forgetPreferredMethod } from './preferred-method.js';
import { activeOf, findFactor, type StepUpService } from './step-up.js';

export interface FactorLifecycleOptions {
  /** Where the factors, their secrets and codes live (embedded or Okta). */
  identity: IdentityFactors;
  /** The transactions that end the other sessions and queue the notice together with a factor's change. */
  storage: Storage;
  stepUp: StepUpService;
  attempts: CodeAttempts;
  sessions: AccountSessions;
  notifier: Notifier;
  /** The account's activity: each change's event, in its transaction. */
  activity: ActivityLog;
  now: () => number;
  /** The "This wasn't me" links of the method-added notices, where the portal can remove a method (embedded). */
  notMeLinks?: NotMeLinkIssuer | undefined;
}

function statusResponse(factor: IdentityFactor | undefined): FactorStatusResponse {
  return { status: factor?.status ?? 'NOT_ENROLLED', enrolledDate: factor?.enrolledAt ?? null };
}

/** What a change of a factor answers, and the event it notifies (none when nothing changed). */
interface FactorChange {
  response: FactorStatusResponse;
  event?: AccountEvent | undefined;
}

function refuseIfSetUp(factors: IdentityFactor[], type: FactorName): void {
  const status = findFactor(factors, type)?.status;
  if (status === 'ACTIVE' || status === 'INACTIVE') {
    throw refusal(
      API_ERRORS.factorState,
      `${FACTOR_LABELS[type]} is already set up; remove it first to set it up again`,
    );
  }
}

/** The holder's usable passkeys: the portal's own, and those its identity backend keeps (Okta's). */
async function passkeysOf(identity: IdentityFactors, within: Storage, userId: string): Promise<number> {
  const [own, backends] = await Promise.all([
    within.passkeys.countUsable(userId),
    identity.countPasskeys ? identity.countPasskeys(userId) : Promise.resolve(0),
  ]);
  return own + backends;
}

/** `passkeys`: the holder's usable passkeys, active 2-step methods too (a factor may go while one remains). */
function refuseLastFactor(
  factors: IdentityFactor[],
  passkeys: number,
  type: FactorName,
  action: string,
): void {
  const active = activeOf(factors);
  if (active.includes(type) && active.length + passkeys < MIN_ACTIVE_FACTORS_TO_TURN_OFF) {
    throw refusal(
      API_ERRORS.lastFactor,
      `You cannot ${action} your only active 2-step factor: at least ${MIN_ACTIVE_FACTORS_TO_TURN_OFF} active factors are required. Set up another factor first.`,
    );
  }
}

/**
 * What the portal decides about setting up and changing 2-step factors, whichever identity backend holds them:
 * fresh proof before a first factor, the last-factor rule, the code and email-send throttles, ending the
 * account's other sessions and the notice on every change. Refusals are HttpErrors with a message safe to show.
 */
export class FactorLifecycle {
  private readonly identity: IdentityFactors;
  private readonly storage: Storage;
  private readonly stepUp: StepUpService;
  private readonly attempts: CodeAttempts;
  private readonly sessions: AccountSessions;
  private readonly notifier: Notifier;
  private readonly activity: ActivityLog;
  private readonly now: () => number;
  private readonly notMeLinks: NotMeLinkIssuer | undefined;

  constructor(options: FactorLifecycleOptions) {
    ({
      identity: this.identity,
      storage: this.storage,
      stepUp: this.stepUp,
      attempts: this.attempts,
      sessions: this.sessions,
      notifier: this.notifier,
      activity: this.activity,
      now: this.now,
      notMeLinks: this.notMeLinks,
    } = options);
  }

  /**
   * Runs a change of the account's factors: `change` makes the checks and the backend's change, `record` the
   * portal's own writes after it (grant, ended sessions, notice). A backend in the portal's database (embedded)
   * takes part in one write transaction with both, so what `change` checked still holds when everything commits
   * together. Otherwise (Okta) `change` runs outside any transaction, so the database's write lock is never held
   * across a call to Okta, and `record` in a transaction of its own once the backend made the change.
   */
  private change<T>(change: (identity: IdentityFactors, within: Storage) => Promise<T>): Promise<T>;
  private change<T, R>(
    change: (identity: IdentityFactors, within: Storage) => Promise<T>,
    record: (tx: Storage, changed: T) => Promise<R>,
  ): Promise<R>;
  private async change<T, R>(
    change: (identity: IdentityFactors, within: Storage) => Promise<T>,
    record?: (tx: Storage, changed: T) => Promise<R>,
  ): Promise<T | R> {
    const { identity } = this;
    if (identity.inTransaction) {
      const bind = identity.inTransaction.bind(identity);
      return this.storage.transaction(async (tx) => {
        const changed = await change(bind(tx), tx);
        return record ? record(tx, changed) : changed;
      });
    }
    const changed = await change(identity, this.storage);
    return record ? this.storage.transaction((tx) => record(tx, changed)) : changed;
  }

  async details(userId: string, type: FactorName): Promise<FactorDetailsResponse> {
    const factor = findFactor(await this.identity.listFactors(userId), type);
    const enrolled = factor?.status === 'ACTIVE' || factor?.status === 'INACTIVE';
    return {
      enrolled,
      enrolledDate: enrolled ? (factor?.enrolledAt ?? null) : null,
      turnOff: this.identity.factorTurnOff,
    };
  }

  /**
   * A factor's change: every other session of the account ends, and every grant chain and refresh token of the
   * account, the caller's included (a copied refresh token may be a branch of it); the caller keeps its provider
   * session and renews with its cookie. The step-up grants go too (the caller's is carried to its next chain),
   * the change's notice is queued, all in `tx` (the transaction of the change itself where the backend takes
   * part in it), so a phishing session that held the password or a copied refresh token is out the moment
   * 2-step changes. `added`: the method just added, whose notice carries a "This wasn't me" link that removes it.
   */
  private async endOthersAndNotify(
    tx: Storage,
    actor: Actor,
    event: AccountEvent,
    added?: AddedMethod,
  ): Promise<void> {
    await this.sessions.endOtherSessions(actor.user.id, actor.sessionUid, tx, actor.tokenId);
    await this.stepUp.endOtherStepUpGrants(actor, tx);
    const notMeLink =
      added && this.notMeLinks ? await this.notMeLinks.issue(tx, actor.user.id, added) : undefined;
    const context = { userAgent: actor.userAgent, at: this.now(), notMeLink };
    await this.notifier.queue(actor.user, event, context, tx.outbox);
    await recordActivityOf(this.activity, tx, actor.user.id, event, actor);
  }

  /**
   * A 2-step method kept outside the factors changed (a passkey added or removed, passkeys/), in its transaction
   * `tx`: what every factor change does (the other sessions end, the grants go, the notice is queued) and, when a
   * method went, the recovery codes with the last one. Call `afterMethodChange` once it committed. `added`: the
   * method added (its notice's "This wasn't me" link removes it).
   */
  async recordMethodChange(
    tx: Storage,
    actor: Actor,
    event: AccountEvent,
    removed: boolean,
    added?: AddedMethod,
  ): Promise<void> {
    await this.endOthersAndNotify(tx, actor, event, added);
    if (removed) await this.stepUp.recoveryCodes.removeIfNoActiveFactor(actor, tx);
  }

  /** Once a `recordMethodChange` committed: ending the other sessions outside the database, where there is any. */
  async afterMethodChange(actor: Actor): Promise<void> {
    await this.sessions.endOtherSessionsAfterCommit(actor.user.id);
  }

  // ---- Enrolment ------------------------------------------------------------------------------------------

  /**
   * Starts setting up a factor; it stays pending until a correct code activates it. A kind whose set-up sends
   * a code is counted by the email-send throttle and runs outside the write transaction (no mail is sent while
   * it is held); the others check and change in one transaction (embedded).
   */
  async enrol(actor: Actor, type: FactorName): Promise<FactorEnrolment> {
    const { user } = actor;
    if (kindOf(type).enrolSendsCode) {
      await this.stepUp.requireFreshProof(actor);
      refuseIfSetUp(await this.identity.listFactors(user.id), type);
      return this.attempts.countedSend(user.id, () => this.identity.enrol(user, type));
    }
    return this.change(async (identity, within) => {
      await this.stepUp.requireFreshProof(actor, within, identity);
      refuseIfSetUp(await identity.listFactors(user.id), type);
      return identity.enrol(user, type);
    });
  }

  /**
   * A correct code activates a pending factor. It also proves possession of the new factor, so the session
   * gets a step-up grant: a user who just set up their first factor can go on to manage it.
   */
  async activate(actor: Actor, type: FactorName, code: string): Promise<FactorStatusResponse> {
    const { user } = actor;
    await this.stepUp.requireFreshProof(actor);
    const factor = findFactor(await this.identity.listFactors(user.id), type);
    if (factor?.status !== 'PENDING_ACTIVATION') {
      throw refusal(
        API_ERRORS.factorState,
        factor ? `${FACTOR_LABELS[type]} is already set up` : `Start setting up ${FACTOR_LABELS[type]} first`,
      );
    }
    const attempt = await this.attempts.reserve(user.id);
    const activation = await this.identity.activate(user.id, type, code);
    if (!activation) return this.attempts.wrong(user, actor.userAgent, attempt);
    const response = await this.storage.transaction(async (tx) => {
      const active = await activation.commit(tx);
      await this.attempts.accepted(user.id, tx);
      await this.stepUp.grant(user.id, actor.grantKey, type, tx.grants);
      const added = active.enrolledAt === null ? undefined : { method: type, instance: active.enrolledAt };
      await this.endOthersAndNotify(tx, actor, { type: 'factor-activated', factor: type }, added);
      return statusResponse(active);
    });
    await this.sessions.endOtherSessionsAfterCommit(user.id);
    return response;
  }

  // ---- Turning on and off, removal ------------------------------------------------------------------------

  /**
   * The portal's part of a factor change: the other sessions end and the notice goes, when anything changed. A
   * method turned off or removed may have been the last one on: the recovery codes then go too.
   */
  private recordFactorChange(actor: Actor) {
    return async (tx: Storage, { response, event }: FactorChange): Promise<FactorChange> => {
      if (event) await this.endOthersAndNotify(tx, actor, event);
      if (event?.type === 'factor-turned-off' || event?.type === 'factor-removed') {
        await this.stepUp.recoveryCodes.removeIfNoActiveFactor(actor, tx);
        // No default any more (issue 22): the sign-in and the step-up go back to the fixed order.
        await forgetPreferredMethod(tx, actor.user.id, event.factor);
      }
      return { response, event };
    };
  }

  /**
   * Once the change committed: what ending the other sessions needs outside the database (Okta: the account's
   * refresh tokens at the org), when anything changed.
   */
  private async afterCommit(actor: Actor, recorded: Promise<FactorChange>): Promise<FactorStatusResponse> {
    const { response, event } = await recorded;
    if (event) await this.sessions.endOtherSessionsAfterCommit(actor.user.id);
    return response;
  }

  optIn(actor: Actor, type: FactorName): Promise<FactorStatusResponse> {
    const { user } = actor;
    // Embedded: every check and the change in one write transaction, so what was checked still holds.
    return this.afterCommit(
      actor,
      this.change(async (identity, within): Promise<FactorChange> => {
        await this.stepUp.requireFreshProof(actor, within, identity);
        const factor = findFactor(await identity.listFactors(user.id), type);
        if (factor?.status === 'INACTIVE') {
          const after = await identity.setEnabled(user.id, type, true);
          return { response: statusResponse(after), event: { type: 'factor-turned-on', factor: type } };
        }
        if (factor?.status !== 'ACTIVE') {
          throw refusal(API_ERRORS.factorState, `Set up ${FACTOR_LABELS[type]} before turning it on`);
        }
        return { response: statusResponse(factor) };
      }, this.recordFactorChange(actor)),
    );
  }

  /**
   * Turns a set-up factor off. Embedded: it stays set up (INACTIVE) and can be turned on again. Okta has no "off"
   * for one factor: the enrolment is removed (its own sign-in then stops asking for it), and the notice says so.
   */
  optOut(actor: Actor, type: FactorName): Promise<FactorStatusResponse> {
    const { user } = actor;
    // Embedded: in one write transaction, so two sessions turning off the last two factors at once cannot both
    // pass the last-factor check.
    return this.afterCommit(
      actor,
      this.change(async (identity, within): Promise<FactorChange> => {
        const factors = await identity.listFactors(user.id);
        const factor = findFactor(factors, type);
        if (!factor || factor.status === 'PENDING_ACTIVATION') {
          throw refusal(API_ERRORS.factorState, `${FACTOR_LABELS[type]} is not set up`);
        }
        refuseLastFactor(factors, await passkeysOf(identity, within, user.id), type, 'turn off');
        if (factor.status !== 'ACTIVE') return { response: statusResponse(factor) };
        const after = await identity.setEnabled(user.id, type, false);
        return {
          response: statusResponse(after),
          event: { type: after ? 'factor-turned-off' : 'factor-removed', factor: type },
        };
      }, this.recordFactorChange(actor)),
    );
  }

  reset(actor: Actor, type: FactorName): Promise<FactorStatusResponse> {
    const { user } = actor;
    return this.afterCommit(
      actor,
      this.change(async (identity, within): Promise<FactorChange> => {
        const factors = await identity.listFactors(user.id);
        const factor = findFactor(factors, type);
        if (!factor) return { response: statusResponse(undefined) };
        refuseLastFactor(factors, await passkeysOf(identity, within, user.id), type, 'remove');
        await identity.remove(user.id, type);
        return {
          response: statusResponse(undefined),
          // A set-up that never finished is no factor yet: nothing to end or tell.
          event:
            factor.status === 'PENDING_ACTIVATION' ? undefined : { type: 'factor-removed', factor: type },
        };
      }, this.recordFactorChange(actor)),
    );
  }
}
