// The shell's Module Federation runtime plugin (issue 23): each remoteEntry.js loads with the integrity the resolved
// set gives and with CORS; a stable release that fails falls back, in the same page load, to the previous stable;
// every load's outcome is reported (loadReports.ts: with the holder's token when signed in, which is what lets a
// canary holder's failure count toward the canary's automatic rollback).
import type { ModuleFederationRuntimePlugin } from '@module-federation/enhanced/runtime';
import type { RemoteLoadFailureKind } from 'shared-auth';
import type { ActiveRemotes } from '../model/activeRemotes.js';
import type { ReportLoad } from './loadReports.js';

export interface PortalPluginDeps {
  remotes: ActiveRemotes;
  report: ReportLoad;
  classify: (
    error: unknown,
    remote: { entry: string; integrity: string | null },
  ) => Promise<RemoteLoadFailureKind>;
}

export const PORTAL_PLUGIN_NAME = 'portal-releases';

/** The script element for a remote's entry: integrity from the resolved set, CORS so the browser can check it. */
export function entryScript(url: string, integrity: string | null): HTMLScriptElement {
  const script = document.createElement('script');
  script.src = url;
  // Attributes, set before the element is attached: the browser reads them when it starts the fetch.
  script.setAttribute('crossorigin', 'anonymous');
  if (integrity) script.setAttribute('integrity', integrity);
  return script;
}

export function createPortalFederationPlugin({
  remotes,
  report,
  classify,
}: PortalPluginDeps): ModuleFederationRuntimePlugin {
  return {
    name: PORTAL_PLUGIN_NAME,
    createScript({ url, remoteInfo }) {
      const active = remoteInfo ? remotes.of(remoteInfo.name) : remotes.byEntry(url);
      // A script of no remote of ours (none today) keeps the runtime's own element.
      if (!active || active.entry !== url) return undefined;
      return entryScript(url, active.integrity);
    },
    onLoad(args) {
      const name = args.remote.name;
      const active = remotes.of(name);
      remotes.markLoaded(name);
      report({ remote: name, version: active?.version ?? null, outcome: 'loaded' });
      return undefined;
    },
    async errorLoadRemote({ id, error, lifecycle, remote, origin }) {
      // Only a failed load of a remote we know (not a request for an unknown one) is a remote's failure.
      if (lifecycle !== 'onLoad' || !remote) return undefined;
      const name = remote.name;
      const active = remotes.of(name);
      if (!active) return undefined;
      report({
        remote: name,
        version: active.version,
        outcome: 'failed',
        kind: await classify(error, active),
      });
      if (!remotes.switchToFallback(name)) return undefined;
      const fallback = remotes.of(name);
      if (!fallback) return undefined;
      console.warn(
        `${name} ${active.version ?? ''} failed to load; loading ${fallback.version ?? ''} instead:`,
        error,
      );
      origin.registerRemotes([{ name, entry: fallback.entry }], { force: true });
      // A failure of the fallback comes back here, finds nothing more to fall back to, and is the page's error.
      return origin.loadRemote(id);
    },
  };
}
