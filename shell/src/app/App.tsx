import { BrowserRouter } from 'shared-router';
import { PortalThemeProvider } from 'shared-ui';
import { SettingsGate } from '../features/settings/components/SettingsGate.js';
import { RemotesProvider } from '../features/remotes/hooks/useRemotes.js';
import { PortalRoutes } from './PortalRoutes.js';

export function App() {
  return (
    <PortalThemeProvider>
      <BrowserRouter>
        <RemotesProvider>
          <SettingsGate>{(settings) => <PortalRoutes settings={settings} />}</SettingsGate>
        </RemotesProvider>
      </BrowserRouter>
    </PortalThemeProvider>
  );
}
