// Which build of each remote this page load uses: the resolved set's choice, or, once a stable release failed to
// load, its fallback (the previous stable). Also remembers which remotes loaded, for the About dialog.
import type { ResolvedRemote, ResolvedRemotes } from 'shared-auth';

/** The build of a remote the page loads now. */
export interface ActiveRemote {
  entry: string;
  integrity: string | null;
  version: string | null;
  buildId: string | null;
  channel: ResolvedRemote['channel'];
  /** The previous stable stands in for a stable release that failed in this page load. */
  isFallback: boolean;
}

export class ActiveRemotes {
  private resolved = new Map<string, ResolvedRemote>();
  private fellBack = new Set<string>();
  private loaded = new Set<string>();

  /** A new resolved set (start-up, or re-resolved once signed in): fallbacks and loads start over. */
  set(config: ResolvedRemotes): void {
    this.resolved = new Map(Object.entries(config.remotes));
    this.fellBack.clear();
    this.loaded.clear();
  }

  names(): string[] {
    return [...this.resolved.keys()];
  }

  of(name: string): ActiveRemote | undefined {
    const remote = this.resolved.get(name);
    if (!remote) return undefined;
    const { entry, integrity, version, buildId, channel, fallback } = remote;
    if (fallback && this.fellBack.has(name)) {
      // The fallback's build id is not in the resolved set: the page's data-build shows it.
      return { ...fallback, buildId: null, channel: 'stable', isFallback: true };
    }
    return { entry, integrity, version, buildId, channel, isFallback: false };
  }

  /** The active remote whose entry is `url`, so the script loader can find the integrity to set. */
  byEntry(url: string): ActiveRemote | undefined {
    for (const name of this.resolved.keys()) {
      const active = this.of(name);
      if (active?.entry === url) return active;
    }
    return undefined;
  }

  /**
   * Switches a failed stable release to its fallback, once per page load; false when there is none to switch to
   * (a canary's holders get stable on their next load instead, a bootstrap entry has no previous version).
   */
  switchToFallback(name: string): boolean {
    const remote = this.resolved.get(name);
    if (!remote || remote.channel !== 'stable' || !remote.fallback || this.fellBack.has(name)) return false;
    this.fellBack.add(name);
    return true;
  }

  markLoaded(name: string): void {
    this.loaded.add(name);
  }

  /** The remotes loaded in this page so far, with the build each runs. */
  loadedRemotes(): { name: string; active: ActiveRemote }[] {
    return [...this.loaded].flatMap((name) => {
      const active = this.of(name);
      return active ? [{ name, active }] : [];
    });
  }
}

/** The page's one registry (the MF runtime plugin and the page loader share it). */
export const activeRemotes = new ActiveRemotes();
