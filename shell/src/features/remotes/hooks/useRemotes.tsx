import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import type { ResolvedRemotes } from 'shared-auth';
import { useLocation } from 'shared-router';
import {
  getRemotesConfig,
  getSignedInRemotesConfig,
  preloadPageModule,
  registerPortalRemotes,
} from '../api/remotesConfig.js';
import { earlyRemotesSignedIn } from '../../../lib/earlyRequests.js';
import { PORTAL_PAGES } from '../../../config/pages.js';

export type RemotesState =
  | { status: 'loading' }
  /** An anonymous set with releases in it: the pages wait for the holder's (their canaries) once signed in. */
  | { status: 'awaiting-holder' }
  | { status: 'failed'; message: string }
  | { status: 'ready'; available: ReadonlySet<string> };

interface RemotesContextValue {
  state: RemotesState;
  /** Resolves the set again with the holder's token, when the first answer was an anonymous one. */
  resolveForHolder: (accessToken: string) => void;
}

const RemotesContext = createContext<RemotesContextValue>({
  state: { status: 'loading' },
  resolveForHolder: () => undefined,
});

interface RemotesProviderProps {
  load?: () => Promise<ResolvedRemotes>;
  /** Whether `load` sent the holder's token (the early request did, when one was stored). */
  loadedSignedIn?: () => boolean;
  loadSignedIn?: (accessToken: string, signal: AbortSignal) => Promise<ResolvedRemotes>;
  register?: (config: ResolvedRemotes) => void;
  children: ReactNode;
}

const readyWith = (config: ResolvedRemotes): RemotesState => ({
  status: 'ready',
  available: new Set(Object.keys(config.remotes)),
});

/**
 * A canary can only be in a set with a release: a set of remotes-file entries alone (a fresh install) is the same
 * for everyone, and needs no second request.
 */
const hasReleases = (config: ResolvedRemotes) =>
  Object.values(config.remotes).some((remote) => remote.channel !== 'bootstrap');

/**
 * Fetches and registers the remotes once; a failure here is contained to the remote pages. The set is the holder's
 * (their canaries) when the first request carried their stored token; otherwise it is resolved once more when they
 * are signed in (the sign-in return), before any remote page loads, so a holder sees one version on every load.
 */
export function RemotesProvider({
  load = getRemotesConfig,
  loadedSignedIn = earlyRemotesSignedIn,
  loadSignedIn = getSignedInRemotesConfig,
  register = registerPortalRemotes,
  children,
}: RemotesProviderProps) {
  const [state, setState] = useState<RemotesState>({ status: 'loading' });
  // The anonymous set, while it may still be replaced by the holder's; null once the holder's is in (or not needed).
  const anonymous = useRef<ResolvedRemotes | null>(null);
  const upgrade = useRef<AbortController | null>(null);
  const { pathname } = useLocation();
  // Only the address the visitor arrived at matters here (later pages preload on hover).
  const [landingPath] = useState(pathname);

  useEffect(() => {
    let current = true;
    load()
      .then((config) => {
        register(config);
        const signedIn = loadedSignedIn();
        anonymous.current = !signedIn && hasReleases(config) ? config : null;
        // Fetch the landing page's remote while sign-in and the federated check are still under way, unless this
        // set is about to be replaced by the holder's.
        const landingPage = PORTAL_PAGES.find((page) => page.path === landingPath);
        if (landingPage && config.remotes[landingPage.remote] && !anonymous.current)
          preloadPageModule(landingPage.remote);
        if (current) setState(anonymous.current ? { status: 'awaiting-holder' } : readyWith(config));
      })
      .catch((error: unknown) => {
        console.error('The remotes configuration could not be loaded:', error);
        if (current)
          setState({ status: 'failed', message: error instanceof Error ? error.message : String(error) });
      });
    return () => {
      current = false;
      upgrade.current?.abort();
    };
  }, [load, loadedSignedIn, register, landingPath]);

  const value = useMemo<RemotesContextValue>(
    () => ({
      state,
      resolveForHolder: (accessToken) => {
        const fallback = anonymous.current;
        if (state.status !== 'awaiting-holder' || !fallback || upgrade.current) return;
        const controller = new AbortController();
        upgrade.current = controller;
        setState({ status: 'loading' });
        loadSignedIn(accessToken, controller.signal)
          .then(
            (config) => config,
            (error: unknown) => {
              // The anonymous set still loads every page: only the canary is missed, until the next load.
              console.warn('The remotes could not be resolved for the signed-in holder:', error);
              return fallback;
            },
          )
          .then((config) => {
            if (controller.signal.aborted) return;
            anonymous.current = null;
            if (config !== fallback) register(config);
            setState(readyWith(config));
          });
      },
    }),
    [state, loadSignedIn, register],
  );

  return <RemotesContext.Provider value={value}>{children}</RemotesContext.Provider>;
}

export function useRemotes(): RemotesState {
  return useContext(RemotesContext).state;
}

/** Once a holder is signed in: their set, when the page started with an anonymous one. */
export function useRemotesForHolder(accessToken: string | undefined): void {
  const { state, resolveForHolder } = useContext(RemotesContext);
  const awaiting = state.status === 'awaiting-holder';
  useEffect(() => {
    if (awaiting && accessToken) resolveForHolder(accessToken);
  }, [awaiting, accessToken, resolveForHolder]);
}
