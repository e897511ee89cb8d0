/**
 * A remote's releases: publish a version, put one in canary for a percentage of holders, promote one to stable (the
 * old stable kept as the fallback), roll back (the canary cleared, else stable back to the previous one), and the
 * status with the last 50 actions. Every action is one transaction with its audit event (who: the deploy key's
 * label). Every load report counts in its version's loads and failures (what `status` shows); only a signed-in
 * holder in the canary's bucket votes on the canary, once per version (storage/release-votes.ts), and a canary whose
 * votes pass the threshold is cleared by one conditional update, so of any number of instances exactly one rolls it
 * back and logs `auto-rollback`. Anonymous reports never move a canary: anyone can send them, and anonymous pages
 * never get a canary anyway.
 */
import {
  API_ERRORS,
  RELEASE_SYSTEM_ACTOR,
  type CanaryBody,
  type PromoteBody,
  type PublishBody,
  type ReleaseAction,
  type ReleaseStatus,
  type RemoteLoadReport,
} from 'shared-auth/contract';
import { isLoopbackHost } from '../config/loopback.js';
import { refusal } from '../http/errors.js';
import type { Storage } from '../storage/index.js';
import type { ReleaseChannel, RollbackThreshold } from '../storage/releases.js';
import type { VoteTally } from '../storage/release-votes.js';
import { inCanary } from './canary-bucket.js';

/** The remotes file's rule for an entry (config/index.ts): an https portal takes https entries, off localhost. */
export function entryRuleOf(publicUrl: string): ((entry: URL) => boolean) | undefined {
  if (!publicUrl.startsWith('https:')) return undefined;
  const publicOnLoopback = isLoopbackHost(new URL(publicUrl).hostname);
  return (entry) => entry.protocol === 'https:' && (publicOnLoopback || !isLoopbackHost(entry.hostname));
}

/** How many of a remote's actions the status shows. */
export const STATUS_EVENTS = 50;

export interface ReleasesDeps {
  storage: Storage;
  now: () => number;
  /** CANARY_MIN_LOADS and CANARY_MAX_FAILURE_RATE. */
  threshold: RollbackThreshold;
  /**
   * Whether an entry URL may be published: with an https PUBLIC_URL only https entries, none on localhost unless the
   * portal is on it (the remotes file's rule, config/index.ts). Undefined: any http(s) URL.
   */
  entryAllowed?: (entry: URL) => boolean;
  /** Called after any change of what is live (the CSP's origins follow). */
  onLiveChanged?: () => void;
}

/**
 * What a report did: counted in its version's statistics (a published version), voted on the live canary (a
 * signed-in holder of its bucket, the first report of this outcome), and whether it rolled the canary back; with
 * the canary's tally when it did.
 */
export interface ReportOutcome {
  counted: boolean;
  voted: boolean;
  rolledBack: boolean;
  tally?: VoteTally;
}

const NO_CHANNEL: Omit<ReleaseChannel, 'remote'> = { stable: null, previousStable: null, canary: null };

export class Releases {
  constructor(private readonly deps: ReleasesDeps) {}

  /** Adds a version; publishing the same version with the same data again changes nothing. 409 for other data. */
  async publish(remote: string, body: PublishBody, actor: string): Promise<ReleaseStatus> {
    const { storage, now, entryAllowed } = this.deps;
    if (entryAllowed && !entryAllowed(new URL(body.entry))) {
      throw refusal(
        API_ERRORS.invalidRequest,
        `entry: ${body.entry} is refused: this portal is served over https, so remote entries must be https (and not on localhost)`,
      );
    }
    await storage.transaction(async (tx) => {
      const existing = await tx.releases.version(remote, body.version);
      if (existing) {
        const same =
          existing.entry === body.entry &&
          existing.integrity === body.integrity &&
          existing.buildId === body.buildId;
        if (same) return;
        throw refusal(
          API_ERRORS.versionExists,
          `${remote} ${body.version} is published already with another entry, integrity or build id: publish a new version`,
        );
      }
      const at = now();
      await tx.releases.addVersion({ remote, ...body, publishedBy: actor, publishedAt: at });
      await this.log(tx, remote, 'publish', body.version, actor, at);
    });
    return this.status(remote);
  }

  /** Puts a published version in canary for `percent` % of signed-in holders (replacing any other canary). */
  async canary(remote: string, body: CanaryBody, actor: string): Promise<ReleaseStatus> {
    const { storage, now } = this.deps;
    await storage.transaction(async (tx) => {
      await this.requireVersion(tx, remote, body.version);
      const channel = (await tx.releases.channel(remote)) ?? NO_CHANNEL;
      if (channel.stable === body.version) {
        throw refusal(API_ERRORS.conflict, `${remote} ${body.version} is the stable version already`);
      }
      const at = now();
      // A new canary run is judged on its own loads and holders, not on an earlier run's.
      if (channel.canary?.version !== body.version) {
        await tx.releases.resetCounts(remote, body.version);
        await tx.releaseVotes.clear(remote, body.version);
      }
      await tx.releases.setChannel(
        remote,
        { ...channel, canary: { version: body.version, percent: body.percent } },
        at,
      );
      await this.log(tx, remote, 'canary', body.version, actor, at);
    });
    this.deps.onLiveChanged?.();
    return this.status(remote);
  }

  /** Makes a published version (the canary, or any other) stable; the old stable becomes the fallback. */
  async promote(remote: string, body: PromoteBody, actor: string): Promise<ReleaseStatus> {
    const { storage, now } = this.deps;
    await storage.transaction(async (tx) => {
      await this.requireVersion(tx, remote, body.version);
      const channel = (await tx.releases.channel(remote)) ?? NO_CHANNEL;
      if (channel.stable === body.version) return;
      const at = now();
      await tx.releases.setChannel(
        remote,
        {
          stable: body.version,
          previousStable: channel.stable ?? channel.previousStable,
          canary: channel.canary?.version === body.version ? null : channel.canary,
        },
        at,
      );
      await this.log(tx, remote, 'promote', body.version, actor, at);
    });
    this.deps.onLiveChanged?.();
    return this.status(remote);
  }

  /**
   * With a canary: clears it (everyone gets stable). Without: stable goes back to the previous stable. The event
   * names the version taken out. 409 when there is neither.
   */
  async rollback(remote: string, actor: string): Promise<ReleaseStatus> {
    const { storage, now } = this.deps;
    await storage.transaction(async (tx) => {
      const channel = (await tx.releases.channel(remote)) ?? NO_CHANNEL;
      const at = now();
      if (channel.canary) {
        await tx.releases.setChannel(remote, { ...channel, canary: null }, at);
        await this.log(tx, remote, 'rollback', channel.canary.version, actor, at);
        return;
      }
      if (channel.previousStable) {
        await tx.releases.setChannel(
          remote,
          { stable: channel.previousStable, previousStable: null, canary: null },
          at,
        );
        await this.log(tx, remote, 'rollback', channel.stable, actor, at);
        return;
      }
      throw refusal(
        API_ERRORS.nothingToRollBack,
        `${remote} has no canary and no previous stable version to go back to`,
      );
    });
    this.deps.onLiveChanged?.();
    return this.status(remote);
  }

  async status(remote: string): Promise<ReleaseStatus> {
    const { releases, releaseEvents } = this.deps.storage;
    const [channel, versions, events] = await Promise.all([
      releases.channel(remote),
      releases.versionsOf(remote),
      releaseEvents.latest(remote, STATUS_EVENTS),
    ]);
    return {
      stable: channel?.stable ?? null,
      canary: channel?.canary ?? null,
      versions: versions.map((version) => ({
        version: version.version,
        entry: version.entry,
        integrity: version.integrity,
        buildId: version.buildId,
        publishedBy: version.publishedBy,
        publishedAt: new Date(version.publishedAt).toISOString(),
        loads: version.loads,
        failures: version.failures,
      })),
      events: events.map((event) => ({
        at: new Date(event.at).toISOString(),
        action: event.action,
        version: event.version,
        by: event.actor,
      })),
    };
  }

  /**
   * Counts one report in its published version's loads and failures (a report of an unpublished version, or of the
   * bootstrap entry, version null, counts nothing). When the version is the remote's canary and `holder` (the
   * verified user id of the report's bearer; undefined: anonymous) is in its bucket, records their vote; when the
   * vote moved and the canary's votes pass the threshold, clears the canary and logs `auto-rollback` by `system`,
   * all in the same transaction.
   */
  async report(report: RemoteLoadReport, holder?: string): Promise<ReportOutcome> {
    const { version, remote, outcome } = report;
    const nothing: ReportOutcome = { counted: false, voted: false, rolledBack: false };
    if (version === null) return nothing;
    const { storage, now, threshold } = this.deps;
    const result = await storage.transaction(async (tx): Promise<ReportOutcome> => {
      if (!(await tx.releases.countLoad(remote, version, outcome === 'failed'))) return nothing;
      const counted = { ...nothing, counted: true };
      if (holder === undefined) return counted;
      const canary = (await tx.releases.channel(remote))?.canary;
      // Only a holder the resolver gives this canary to can have loaded it: anyone else's word is not evidence.
      if (canary?.version !== version || !inCanary(holder, remote, canary.percent)) return counted;
      const at = now();
      if (!(await tx.releaseVotes.vote({ remote, version, sub: holder, outcome, at }))) return counted;
      const voted = { ...counted, voted: true };
      if (!(await tx.releases.clearFailingCanary(remote, version, threshold, at))) return voted;
      await this.log(tx, remote, 'auto-rollback', version, RELEASE_SYSTEM_ACTOR, at);
      return { ...voted, rolledBack: true, tally: await tx.releaseVotes.tally(remote, version) };
    });
    if (result.rolledBack) this.deps.onLiveChanged?.();
    return result;
  }

  private async requireVersion(tx: Storage, remote: string, version: string): Promise<void> {
    if (!(await tx.releases.version(remote, version))) {
      throw refusal(API_ERRORS.notFound, `${remote} has no published version ${version}: publish it first`);
    }
  }

  private log(
    tx: Storage,
    remote: string,
    action: ReleaseAction,
    version: string | null,
    actor: string,
    at: number,
  ) {
    return tx.releaseEvents.add(remote, { at, action, version, actor });
  }
}
