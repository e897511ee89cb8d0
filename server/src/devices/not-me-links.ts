/**
 * "This wasn't me" in the mail (issue 22): the link of a method-added notice (factors/not-me-links.ts makes it),
 * for the holder whose password was phished and whose account got someone else's 2-step method. Without signing
 * in, it removes exactly that method (the instance the notice named: a method already removed, or removed and set
 * up again, is not touched), signs out every session, and the page then sends the holder to reset the password.
 *
 * - `open` (the page's GET) only reads: a mail client's link preview changes nothing.
 * - `confirm` (the form's POST, the token in its body) uses the link in the transaction of everything it does:
 *   the link's row is deleted first (`take`), so of two racing posts exactly one acts, and a change that fails
 *   rolls back with its notice and activity events, leaving the link usable.
 * - A used, expired or unknown token answers `gone`: the same for each, so the page tells nothing more.
 * Embedded mode only (the portal removes the method itself).
 */
import { FACTOR_LABELS } from 'shared-auth/contract';
import type { ActivityLog } from '../activity/log.js';
import type { ClientOrigin } from '../clients/describe.js';
import type { Actor } from '../factors/actor.js';
import { notMeTokenHash } from '../factors/not-me-links.js';
import { forgetPreferredMethod } from '../factors/preferred-method.js';
import type { RecoveryCodes } from '../factors/recovery-codes.js';
import type { IdentityFactors } from '../identity/factors.js';
import type { Outbox } from '../notifications/outbox.js';
import type { Storage } from '../storage/index.js';
import type { NotMeLinkMethod, NotMeLinkRecord } from '../storage/not-me-links.js';
import { endEverySession } from './not-me.js';
import { notMeLinkUsedMail, type RemovedMethodName } from './not-me-mails.js';

/** A token as the issuer makes them (32 bytes, base64url): anything else is not looked up. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** What the link's page shows before the confirmation. */
export type NotMeLinkView =
  | { kind: 'gone' }
  | {
      kind: 'confirm';
      method: NotMeLinkMethod;
      /** "Google Authenticator", "The passkey "MacBook"". */
      name: string;
      /** When the link was made: when the method was added (ms). */
      addedAt: number;
      /** Whether that very method is still there (false: removed already; the link then only signs out). */
      present: boolean;
    };

/** What the confirmation did. */
export type NotMeLinkOutcome = { kind: 'gone' } | { kind: 'done'; removed: string | undefined };

export interface NotMeLinksOptions {
  storage: Storage;
  /** The embedded identity backend's factors, taking part in the link's transaction. */
  identity: IdentityFactors;
  recoveryCodes: RecoveryCodes;
  activity: ActivityLog;
  mail: Pick<Outbox, 'queueMessage'>;
  /** The "Forgot password?" page the holder is sent to. */
  resetUrl: string;
  now: () => number;
}

/** The step-up grant key of the link's actor: it has no session, and keeps no grant. */
const NO_GRANT = '';

export class NotMeLinks {
  constructor(private readonly options: NotMeLinksOptions) {}

  get resetUrl(): string {
    return this.options.resetUrl;
  }

  /** The page's view of a link: reads only. */
  async open(token: string): Promise<NotMeLinkView> {
    if (!TOKEN_SHAPE.test(token)) return { kind: 'gone' };
    const { storage, now } = this.options;
    const link = await storage.notMeLinks.find(notMeTokenHash(token), now());
    if (!link || !(await storage.users.findById(link.userId))) return { kind: 'gone' };
    const current = await this.instanceOf(storage, link);
    return {
      kind: 'confirm',
      method: link.method,
      name: current?.name ?? nameOf(link.method, undefined).name,
      addedAt: link.createdAt,
      present: current !== undefined,
    };
  }

  /** Uses the link: removes its method instance if still there, signs out everywhere, notices, events. */
  async confirm(token: string, origin: ClientOrigin): Promise<NotMeLinkOutcome> {
    if (!TOKEN_SHAPE.test(token)) return { kind: 'gone' };
    const { storage, activity, recoveryCodes, mail, resetUrl, now } = this.options;
    return storage.transaction(async (tx): Promise<NotMeLinkOutcome> => {
      const link = await tx.notMeLinks.take(notMeTokenHash(token), now());
      if (!link) return { kind: 'gone' };
      const user = await tx.users.findById(link.userId);
      if (!user) return { kind: 'gone' };
      const removed = await this.removeInstance(tx, link);
      await endEverySession(tx, user.id);
      const actor: Actor = {
        user,
        grantKey: NO_GRANT,
        sessionUid: undefined,
        signedInAt: undefined,
        userAgent: origin.userAgent,
        ip: origin.ip,
      };
      if (removed) {
        await activity.record(
          tx.activity,
          { userId: user.id, kind: 'method-removed', detail: link.method },
          origin,
        );
        // The last method gone takes the recovery codes with it, as any removal does.
        await recoveryCodes.removeIfNoActiveFactor(actor, tx);
      }
      await activity.record(
        tx.activity,
        { userId: user.id, kind: 'sessions-signed-out', detail: 'everywhere' },
        origin,
      );
      await mail.queueMessage(user, notMeLinkUsedMail(removed, resetUrl, now(), origin.userAgent), tx.outbox);
      return { kind: 'done', removed: removed?.name };
    });
  }

  /** The link's method instance if it is still set up (the same activation, the same passkey), and its name. */
  private async instanceOf(within: Storage, link: NotMeLinkRecord): Promise<RemovedMethodName | undefined> {
    if (link.method === 'passkey') {
      const passkey = await within.passkeys.get(link.userId, link.instance);
      return passkey && nameOf('passkey', passkey.name);
    }
    const factors = await this.factorsIn(within).listFactors(link.userId);
    const factor = factors.find((each) => each.type === link.method);
    const same =
      factor !== undefined && factor.status !== 'PENDING_ACTIVATION' && factor.enrolledAt === link.instance;
    return same ? nameOf(link.method, undefined) : undefined;
  }

  private async removeInstance(tx: Storage, link: NotMeLinkRecord): Promise<RemovedMethodName | undefined> {
    const current = await this.instanceOf(tx, link);
    if (!current) return undefined;
    if (link.method === 'passkey') await tx.passkeys.remove(link.userId, link.instance);
    else await this.factorsIn(tx).remove(link.userId, link.method);
    // A method gone is no longer the one the sign-in opens with (passkeys: once none is left).
    if (link.method !== 'passkey' || (await tx.passkeys.countUsable(link.userId)) === 0) {
      await forgetPreferredMethod(tx, link.userId, link.method);
    }
    return current;
  }

  private factorsIn(within: Storage): IdentityFactors {
    const { identity } = this.options;
    return identity.inTransaction ? identity.inTransaction(within) : identity;
  }
}

/** How the page and the notice name a method. */
function nameOf(method: NotMeLinkMethod, passkeyName: string | undefined): RemovedMethodName {
  if (method === 'passkey') {
    return {
      name: passkeyName === undefined ? 'The passkey' : `The passkey "${passkeyName}"`,
      subject: 'A passkey was removed from your F5 account',
    };
  }
  const label = FACTOR_LABELS[method];
  return { name: label, subject: `${label} was removed from your F5 account` };
}
