import { registerRemotes, loadRemote } from '@module-federation/enhanced/runtime';
import type { ComponentType } from 'react';
import { remotesConfigSchema, type RemoteName, type RemotesConfig } from 'shared-auth';
import { pageModuleRequest } from '../pages.js';

/** The remotes' locations are deploy-time configuration, fetched at runtime from next to the shell. */
export async function getRemotesConfig(url = '/remotes.json'): Promise<RemotesConfig> {
  const response = await fetch(url, { headers: { Accept: 'application/json' }, cache: 'no-cache' });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  const parsed = remotesConfigSchema.safeParse(await response.json());
  if (!parsed.success) {
    const problem = parsed.error.issues[0];
    throw new Error(`Invalid setting in ${url}: ${problem?.path.join('.') ?? ''}: ${problem?.message ?? ''}`);
  }
  return parsed.data;
}

const registered = new Map<string, string>();

export function registerPortalRemotes(config: RemotesConfig): void {
  for (const [name, { entry }] of Object.entries(config.remotes)) registered.set(name, entry);
  registerRemotes(
    Object.entries(config.remotes).map(([name, { entry }]) => ({ name, entry })),
    { force: true },
  );
}

export type PageModule = { default: ComponentType };

/**
 * Loads a remote's page component through the MF runtime. A retry registers the remote afresh: the runtime
 * otherwise keeps answering with the failed load of its remoteEntry.js.
 */
export async function loadPageModule(remote: RemoteName, retry = false): Promise<PageModule> {
  const entry = registered.get(remote);
  if (retry && entry) registerRemotes([{ name: remote, entry }], { force: true });
  const module = await loadRemote<Partial<PageModule>>(pageModuleRequest(remote));
  if (!module || typeof module.default !== 'function') {
    throw new Error(`${remote} did not expose a page component at ${pageModuleRequest(remote)}`);
  }
  return { default: module.default };
}
