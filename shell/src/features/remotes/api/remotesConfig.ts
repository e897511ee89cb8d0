import { registerRemotes, loadRemote } from '@module-federation/enhanced/runtime';
import type { ComponentType } from 'react';
import { remotesConfigSchema, type RemoteName, type RemotesConfig } from 'shared-auth';
import { takeEarlyResponse } from '../../../lib/earlyRequests.js';
import { pageModuleRequest } from '../../../config/pages.js';

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
  if (registered.has(remote)) loadPageModule(remote).catch(() => undefined);
}

async function fetchPageModule(remote: RemoteName): Promise<PageModule> {
  const module = await loadRemote<Partial<PageModule>>(pageModuleRequest(remote));
  if (!module || typeof module.default !== 'function') {
    throw new Error(`${remote} did not expose a page component at ${pageModuleRequest(remote)}`);
  }
  return { default: module.default };
}
