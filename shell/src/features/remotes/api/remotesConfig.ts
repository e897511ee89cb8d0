import { registerPlugins, registerRemotes, loadRemote } from '@module-federation/enhanced/runtime';
import type { ComponentType } from 'react';
import type { RemoteName, ResolvedRemotes } from 'shared-auth';
import { takeEarlyResponse } from '../../../lib/earlyRequests.js';
import { pageModuleRequest } from '../../../config/pages.js';
import { activeRemotes } from '../model/activeRemotes.js';
import { parseRemotesFile } from '../model/resolvedRemotesFile.js';
import { createPortalFederationPlugin } from './portalFederationPlugin.js';
import { createLoadReporter } from './loadReports.js';
import { loadFailureKind } from './loadFailureKind.js';
import { versionRefusalOf } from '../components/RemoteLoadFailed.js';
import type { LoadedRemote } from '../components/AboutDialog.js';

const REMOTES_URL = '/remotes.json';

/**
 * The remotes' locations, fetched at runtime from next to the shell: the release of each remote for this holder
 * (the server resolves the canary by the bearer token), or the remotes file's entry where there is none.
 */
export async function getRemotesConfig(
  request: () => Promise<Response> = () => takeEarlyResponse('remotes'),
  url = REMOTES_URL,
): Promise<ResolvedRemotes> {
  const response = await request();
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const parsed = parseRemotesFile(await response.json());
  if (!parsed.ok) throw new Error(`Invalid setting in ${url}: ${parsed.problem}`);
  return parsed.config;
}

/** The resolved set for a signed-in holder: their canary buckets apply. */
export function getSignedInRemotesConfig(
  accessToken: string,
  signal?: AbortSignal,
): Promise<ResolvedRemotes> {
  return getRemotesConfig(() =>
    fetch(REMOTES_URL, {
      headers: { Accept: 'application/json', Authorization: `Bearer ${accessToken}` },
      cache: 'no-store',
      ...(signal ? { signal } : {}),
    }),
  );
}

export type PageModule = { default: ComponentType };

/**
 * The longest a page's remote may take to load, all of it (remoteEntry.js, the page's chunks, shared modules),
 * before the page shows its contained message with Retry. The MF runtime gives up on remoteEntry.js after 20 s,
 * but the remote's own chunks load through webpack with its 120 s chunk timeout: a slow chunk would keep the
 * spinner up for two minutes. This applies the MF script timeout to the whole load.
 */
export const PAGE_LOAD_TIMEOUT_MS = 20_000;

/** Rejects with `message` when `promise` has not settled within `ms` (it is left to settle unobserved). */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Tells the server how each remote's load went; one reporter for the page, so its throttle holds for all. */
const reportLoad = createLoadReporter();

/** A remote's page that loaded but failed to render (the error boundary caught it). */
export function reportRenderFailure(remote: RemoteName, error: unknown): void {
  reportLoad({
    remote,
    version: activeRemotes.of(remote)?.version ?? null,
    outcome: 'failed',
    // A page that imports a shared package the portal refuses fails when it renders, not when it loads.
    kind: versionRefusalOf(error) ? 'version-contract' : 'render',
  });
}

/** The version the page loads of a remote (null before a release, or for an unknown remote). */
export function activeVersionOf(remote: RemoteName): string | null {
  return activeRemotes.of(remote)?.version ?? null;
}

/** The remotes loaded in this page so far (the About dialog). */
export function loadedRemotes(): LoadedRemote[] {
  return activeRemotes.loadedRemotes();
}

/** Page modules loaded or under way, so a preload and the page share one load. */
const loading = new Map<RemoteName, Promise<PageModule>>();
let pluginRegistered = false;

export function registerPortalRemotes(config: ResolvedRemotes): void {
  if (!pluginRegistered) {
    pluginRegistered = true;
    registerPlugins([
      createPortalFederationPlugin({
        remotes: activeRemotes,
        report: reportLoad,
        classify: (error, remote) => loadFailureKind(error, remote),
      }),
    ]);
  }
  loading.clear();
  activeRemotes.set(config);
  registerRemotes(
    Object.keys(config.remotes).flatMap((name) => {
      const active = activeRemotes.of(name);
      return active ? [{ name, entry: active.entry }] : [];
    }),
    { force: true },
  );
}

/**
 * Loads a remote's page component through the MF runtime. A retry registers the remote afresh: the runtime
 * otherwise keeps answering with the failed load of its remoteEntry.js.
 */
export function loadPageModule(remote: RemoteName, retry = false): Promise<PageModule> {
  const cached = loading.get(remote);
  if (cached && !retry) return cached;
  // After a fallback, Retry loads the fallback again: the failed release is still failed in this page load.
  const entry = activeRemotes.of(remote)?.entry;
  if (retry && entry) registerRemotes([{ name: remote, entry }], { force: true });
  const attempt = withTimeout(
    fetchPageModule(remote),
    PAGE_LOAD_TIMEOUT_MS,
    `${remote} did not load within ${PAGE_LOAD_TIMEOUT_MS / 1000} s`,
  );
  loading.set(remote, attempt);
  // A failed load is not kept: the next visit (or Retry) tries again.
  attempt.catch(() => loading.get(remote) === attempt && loading.delete(remote));
  return attempt;
}

/**
 * Starts loading a page's remote before it is needed (the user hovers or focuses its link), so the route switch
 * costs about what an in-bundle route does. Failures are left for the page itself to show.
 */
export function preloadPageModule(remote: RemoteName): void {
  if (activeRemotes.of(remote)) loadPageModule(remote).catch(() => undefined);
}

async function fetchPageModule(remote: RemoteName): Promise<PageModule> {
  const module = await loadRemote<Partial<PageModule>>(pageModuleRequest(remote));
  if (!module || typeof module.default !== 'function') {
    throw new Error(`${remote} did not expose a page component at ${pageModuleRequest(remote)}`);
  }
  return { default: module.default };
}
