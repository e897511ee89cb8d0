/**
 * The resolved set of remotes (`GET /remotes.json`) for one caller: per remote, its stable release, or its canary
 * when the signed-in holder's bucket falls under the percentage (canary-bucket.ts); anonymous callers get stable.
 * A remote with no stable release keeps the static remotes file's entry (`bootstrap`). Each answer carries the
 * fallback the shell loads instead when the first choice fails: the previous stable for a stable answer, the stable
 * for a canary one. Two reads of the database per call, whatever the number of remotes.
 */
import type { RemotesConfig, ResolvedRemote, ResolvedRemotes } from 'shared-auth/contract';
import type { ReleaseChannel, ReleaseStore, ReleaseVersion } from '../storage/releases.js';
import { inCanary } from './canary-bucket.js';

/** The live state of every remote with a release, and the versions it names. */
export interface LiveReleases {
  channels: ReleaseChannel[];
  versions: ReleaseVersion[];
}

export async function liveReleasesOf(store: ReleaseStore): Promise<LiveReleases> {
  const [channels, versions] = await Promise.all([store.channels(), store.liveVersions()]);
  return { channels, versions };
}

function releasedAs(
  version: ReleaseVersion,
  channel: 'stable' | 'canary',
  fallback: ReleaseVersion | undefined,
): ResolvedRemote {
  return {
    entry: version.entry,
    integrity: version.integrity,
    version: version.version,
    buildId: version.buildId,
    channel,
    fallback: fallback
      ? { entry: fallback.entry, integrity: fallback.integrity, version: fallback.version }
      : null,
  };
}

/** The set for `sub` (undefined: anonymous), over the static file's remotes and every remote with a release. */
export function resolveRemotes(
  live: LiveReleases,
  staticFile: RemotesConfig,
  sub: string | undefined,
): ResolvedRemotes {
  const versionOf = (remote: string, version: string | null) =>
    version === null
      ? undefined
      : live.versions.find((row) => row.remote === remote && row.version === version);
  const remotes: Record<string, ResolvedRemote> = {};
  for (const [name, { entry }] of Object.entries(staticFile.remotes)) {
    remotes[name] = {
      entry,
      integrity: null,
      version: null,
      buildId: null,
      channel: 'bootstrap',
      fallback: null,
    };
  }
  for (const channel of live.channels) {
    const stable = versionOf(channel.remote, channel.stable);
    const canary = channel.canary && versionOf(channel.remote, channel.canary.version);
    if (
      canary &&
      channel.canary &&
      sub !== undefined &&
      inCanary(sub, channel.remote, channel.canary.percent)
    ) {
      remotes[channel.remote] = releasedAs(canary, 'canary', stable);
    } else if (stable) {
      remotes[channel.remote] = releasedAs(
        stable,
        'stable',
        versionOf(channel.remote, channel.previousStable),
      );
    }
  }
  return { remotes };
}

/** Every origin a resolved entry may come from (stable, canary, fallback): the page's CSP must allow each. */
export function liveOriginsOf(live: LiveReleases): string[] {
  return [...new Set(live.versions.map((version) => new URL(version.entry).origin))].sort();
}
