import { useEffect, useState, type ComponentType } from 'react';
import { Spin } from 'shared-ui';
import { PageMessage } from '../../../components/PageMessage.js';
import { afterFirstPage, firstPageShown } from '../../../lib/afterFirstPage.js';
import {
  activeVersionOf,
  loadPageModule,
  reportRenderFailure,
  type PageModule,
} from '../api/remotesConfig.js';
import { useRemotes } from '../hooks/useRemotes.js';
import type { PortalPage } from '../../../config/pages.js';
import { RemoteErrorBoundary } from './RemoteErrorBoundary.js';
import { RemoteLoadFailed } from './RemoteLoadFailed.js';

interface RemotePageProps {
  page: PortalPage;
  load?: (remote: PortalPage['remote'], retry: boolean) => Promise<PageModule>;
}

type LoadState =
  { status: 'loading' } | { status: 'loaded'; Page: ComponentType } | { status: 'failed'; error: Error };

function PageLoading({ label }: { label: string }) {
  return (
    <div style={{ display: 'grid', placeItems: 'center', minHeight: 240 }}>
      <Spin aria-label={`Loading ${label}`} />
    </div>
  );
}

/** Loads a remote's page module once per attempt; Retry is a new attempt. */
function useRemoteModule(remote: PortalPage['remote'], enabled: boolean, load: RemotePageProps['load']) {
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<LoadState & { attempt: number }>({ status: 'loading', attempt: 0 });

  useEffect(() => {
    if (!enabled || !load) return;
    let current = true;
    load(remote, attempt > 0).then(
      (module) => current && setState({ status: 'loaded', Page: module.default, attempt }),
      (error: unknown) => {
        console.error(`The remote ${remote} could not be loaded:`, error);
        if (current)
          setState({
            status: 'failed',
            error: error instanceof Error ? error : new Error(String(error)),
            attempt,
          });
      },
    );
    return () => {
      current = false;
    };
  }, [remote, enabled, load, attempt]);

  // A result of an earlier attempt is stale while the next one is under way.
  const result: LoadState = state.attempt === attempt ? state : { status: 'loading' };
  return { result, attempt, retry: () => setAttempt((count) => count + 1) };
}

/**
 * The form controls ('shared-ui/forms') are on no first page: fetch them once a page is in, while the user reads
 * it. Importing them here also makes the shell their provider, so every remote's forms use the shell's antd and
 * theme instead of a copy of their own.
 */
afterFirstPage(() => void import('shared-ui/forms'));

/** One remote's page, loaded at runtime. Every failure stays inside this route, with a Retry. */
export function RemotePage({ page, load = loadPageModule }: RemotePageProps) {
  const remotes = useRemotes();
  const available = remotes.status === 'ready' && remotes.available.has(page.remote);
  const { result, attempt, retry } = useRemoteModule(page.remote, available, load);
  // After the commit that shows the page: what waits for the first page may load now.
  const loaded = result.status === 'loaded';
  useEffect(() => {
    if (loaded) firstPageShown();
  }, [loaded]);

  if (remotes.status === 'loading' || remotes.status === 'awaiting-holder')
    return <PageLoading label={page.label} />;
  if (remotes.status === 'failed') {
    return (
      <PageMessage status="warning" title={`${page.label} could not be loaded`} subTitle={remotes.message} />
    );
  }
  if (!available) {
    return (
      <PageMessage
        status="info"
        title={`${page.label} is not available`}
        subTitle="This page is not available in this portal yet."
      />
    );
  }
  if (result.status === 'loading') return <PageLoading label={page.label} />;
  if (result.status === 'failed')
    return <RemoteLoadFailed label={page.label} onRetry={retry} error={result.error} />;
  const { Page } = result;
  const version = activeVersionOf(page.remote);
  // The release this page runs, for the team (the page's own root says its build in data-build); no layout box.
  return (
    <div
      style={{ display: 'contents' }}
      data-remote={page.remote}
      {...(version ? { 'data-remote-version': version } : {})}
    >
      <RemoteErrorBoundary
        key={attempt}
        label={page.label}
        onRetry={retry}
        onError={(error) => reportRenderFailure(page.remote, error)}
      >
        <Page />
      </RemoteErrorBoundary>
    </div>
  );
}
