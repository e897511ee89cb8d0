import type { ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import type { RemoteMount } from 'shared-auth';
import { Alert, PortalThemeProvider, Spin } from 'shared-ui';
import { HarnessPage } from './HarnessPage.js';
import { apiBaseUrlOf, fetchSettings } from './settings.js';
import { createHarnessAuth, ensureSignedIn } from './signIn.js';

export { HarnessPage, type HarnessPageProps } from './HarnessPage.js';
export { apiBaseUrlOf, fetchSettings } from './settings.js';
export { createHarnessAuth, ensureSignedIn, signOut, type HarnessAuth } from './signIn.js';

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
  // Flag images are served next to the API unless the settings name another host.
  const flagBaseUrl = /^https?:\/\//.test(settings.FlagBaseUrl)
    ? settings.FlagBaseUrl
    : `${apiBaseUrl}${settings.FlagBaseUrl}`;
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
