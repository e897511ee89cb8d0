import { registerRemotes, loadRemote } from '@module-federation/enhanced/runtime';
import type { ComponentType } from 'react';
import { remotesConfigSchema, type RemoteName, type RemotesConfig } from 'shared-auth';
import { takeEarlyResponse } from '../../../app/startup.js';
import { pageModuleRequest } from '../pages.js';

/** The remotes' locations are deploy-time configuration, fetched at runtime from next to the shell. */
export async function getRemotesConfig(
  request: () => Promise<Response> = () => takeEarlyResponse('remotes'),
  url = '/remotes.json',
): Promise<RemotesConfig> {
  const response = await request();
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const parsed = remotesConfigSchema.safeParse(await response.json());
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new Error(`Invalid setting in ${url}: ${problem?.path.join('.') ?? ''}: ${problem?.message ?? ''}`);
  }
  return parsed.data;
}

export type PageModule = { default: ComponentType };

const registered = new Map<string, string>();
/** Page modules loaded or under way, so a preload and the page share one load. */
const loading = new Map<RemoteName, Promise<PageModule>>();

export function registerPortalRemotes(config: RemotesConfig): void {
  loading.clear();
  for (const [name, { entry }] of Object.entries(config.remotes)) registered.set(name, entry);
  registerRemotes(
    Object.entries(config.remotes).map(([name, { entry }]) => ({ name, entry })),
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
  const entry = registered.get(remote);
  if (retry && entry) registerRemotes([{ name: remote, entry }], { force: true });
  const attempt = fetchPageModule(remote);
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
  if (registered.has(remote)) loadPageModule(remote).catch(() => undefined);
}

async function fetchPageModule(remote: RemoteName): Promise<PageModule> {
  const module = await loadRemote<Partial<PageModule>>(pageModuleRequest(remote));
  if (!module || typeof module.default !== 'function') {
    throw new Error(`${remote} did not expose a page component at ${pageModuleRequest(remote)}`);
  }
  return { default: module.default };
}
