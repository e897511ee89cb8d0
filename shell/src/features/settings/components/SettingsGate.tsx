import { useEffect, useState, type ReactNode } from 'react';
import { WaitDialog } from 'shared-ui';
import { PageMessage } from '../../../components/PageMessage.js';
import { InvalidSettingsError, readSettings, type Settings } from 'shared-auth';
import { takeEarlyResponse } from '../../../lib/earlyRequests.js';

type SettingsState =
  { status: 'loading' } | { status: 'failed'; detail?: string } | { status: 'ready'; settings: Settings };

type LoadSettings = (options: { signal: AbortSignal }) => Promise<Settings>;

/** The settings call started at page load (no auth: the settings say where to sign in). */
const loadPortalSettings: LoadSettings = ({ signal }) =>
  takeEarlyResponse('settings', signal).then(readSettings);

interface SettingsGateProps {
  load?: LoadSettings;
  children: (settings: Settings) => ReactNode;
}

/** Nothing of the portal can start without its settings: the identity provider comes from them. */
export function SettingsGate({ load = loadPortalSettings, children }: SettingsGateProps) {
  const [state, setState] = useState<SettingsState>({ status: 'loading' });

  useEffect(() => {
    const controller = new AbortController();
    const current = () => !controller.signal.aborted;
    load({ signal: controller.signal }).then(
      (settings) => current() && setState({ status: 'ready', settings }),
      (error: unknown) => {
        if (!current()) return;
        // Say which setting is wrong, for whoever deploys the portal.
        console.error('Not able to load settings:', error);
        setState({
          status: 'failed',
          ...(error instanceof InvalidSettingsError ? { detail: error.message } : {}),
        });
      },
    );
    return () => controller.abort();
  }, [load]);

  if (state.status === 'loading') return <WaitDialog open title="Loading" />;
  if (state.status === 'failed') {
    return (
      <main>
        <PageMessage status="error" title="Not able to load settings" subTitle={state.detail} />
      </main>
    );
  }
  return <>{children(state.settings)}</>;
}
