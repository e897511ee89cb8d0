import type { ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { fetchSettings, flagBaseUrlOf, type RemoteMount } from 'shared-auth';
import { Alert, PortalThemeProvider, Spin } from 'shared-ui';
import { apiBaseUrlOf } from './apiBaseUrl.js';
import { HarnessPage } from './HarnessPage.js';
import { createHarnessAuth, ensureSignedIn } from './signIn.js';

export { apiBaseUrlOf } from './apiBaseUrl.js';
export { HarnessPage, type HarnessPageProps } from './HarnessPage.js';
export { createHarnessAuth, ensureSignedIn, type HarnessAuth } from './signIn.js';

function Message({ title }: { title: string }) {
  return (
    <main style={{ padding: 24 }}>
      <Alert type="error" showIcon title={title} />
    </main>
  );
}

/**
 * The remote's own page (its `main` entry, never remoteEntry.js): signs in against the portal's identity
 * provider, then renders the page through the remote's mount(), without the shell.
 */
export async function startStandaloneHarness({
  remote,
  mount,
  container = document.getElementById('root'),
}: {
  remote: string;
  mount: RemoteMount<HTMLElement>;
  container?: HTMLElement | null;
}): Promise<void> {
  if (!container) throw new Error('The page has no #root element for the harness.');
  const root = createRoot(container);
  const show = (node: ReactNode) => root.render(<PortalThemeProvider>{node}</PortalThemeProvider>);
  show(
    <div style={{ display: 'grid', placeItems: 'center', minHeight: '50vh' }}>
      <Spin aria-label="Loading" />
    </div>,
  );

  const apiBaseUrl = apiBaseUrlOf(document);
  const settings = await fetchSettings(apiBaseUrl).catch((error: unknown) => {
    console.error('The settings could not be loaded:', error);
  });
  if (!settings) return show(<Message title="Not able to load settings" />);

  const auth = createHarnessAuth(settings, window.location.origin);
  try {
    if ((await ensureSignedIn(auth, window.location)).status === 'redirecting') return;
  } catch (error) {
    console.error('Sign-in failed:', error);
    return show(<Message title={`Error: ${error instanceof Error ? error.message : String(error)}`} />);
  }
  const flagBaseUrl = flagBaseUrlOf(settings, apiBaseUrl);
  show(
    <HarnessPage
      remote={remote}
      mount={mount}
      auth={auth}
      apiBaseUrl={apiBaseUrl}
      flagBaseUrl={flagBaseUrl}
    />,
  );
}
