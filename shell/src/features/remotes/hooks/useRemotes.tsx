import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import type { RemotesConfig } from 'shared-auth';
import { useLocation } from 'shared-router';
import { getRemotesConfig, preloadPageModule, registerPortalRemotes } from '../api/remotesConfig.js';
import { PORTAL_PAGES } from '../../../config/pages.js';

export type RemotesState =
  | { status: 'loading' }
  | { status: 'failed'; message: string }
  | { status: 'ready'; available: ReadonlySet<string> };

const RemotesContext = createContext<RemotesState>({ status: 'loading' });

interface RemotesProviderProps {
  load?: () => Promise<RemotesConfig>;
  register?: (config: RemotesConfig) => void;
  children: ReactNode;
}

/** Fetches and registers the remotes once; a failure here is contained to the remote pages. */
export function RemotesProvider({
  load = getRemotesConfig,
  register = registerPortalRemotes,
  children,
}: RemotesProviderProps) {
  const [state, setState] = useState<RemotesState>({ status: 'loading' });
  const { pathname } = useLocation();
  // Only the address the visitor arrived at matters here (later pages preload on hover).
  const [landingPath] = useState(pathname);

  useEffect(() => {
    let current = true;
    load()
      .then((config) => {
        register(config);
        // Fetch the landing page's remote while sign-in and the federated check are still under way.
        const landingPage = PORTAL_PAGES.find((page) => page.path === landingPath);
        if (landingPage && config.remotes[landingPage.remote]) preloadPageModule(landingPage.remote);
        if (current) setState({ status: 'ready', available: new Set(Object.keys(config.remotes)) });
      })
      .catch((error: unknown) => {
        console.error('The remotes configuration could not be loaded:', error);
        if (current)
          setState({ status: 'failed', message: error instanceof Error ? error.message : String(error) });
      });
    return () => {
      current = false;
    };
  }, [load, register, landingPath]);

  return <RemotesContext.Provider value={state}>{children}</RemotesContext.Provider>;
}

export function useRemotes(): RemotesState {
  return useContext(RemotesContext);
}
