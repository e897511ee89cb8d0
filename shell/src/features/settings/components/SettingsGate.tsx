import { useEffect, useState, type ReactNode } from 'react';
import { WaitDialog } from 'shared-ui';
import { PageMessage } from '../../../components/PageMessage.js';
import type { Settings } from 'shared-auth';
import { getSettings, InvalidSettingsError } from '../api/getSettings.js';

type SettingsState =
  { status: 'loading' } | { status: 'failed'; detail?: string } | { status: 'ready'; settings: Settings };

interface SettingsGateProps {
  load?: () => Promise<Settings>;
  children: (settings: Settings) => ReactNode;
}

/** Nothing of the portal can start without its settings: the identity provider comes from them. */
export function SettingsGate({ load = getSettings, children }: SettingsGateProps) {
  const [state, setState] = useState<SettingsState>({ status: 'loading' });

  useEffect(() => {
    let current = true;
    load().then(
      (settings) => current && setState({ status: 'ready', settings }),
      (error: unknown) => {
        // Say which setting is wrong, for whoever deploys the portal.
        console.error('Not able to load settings:', error);
        if (current) {
          setState({
            status: 'failed',
            ...(error instanceof InvalidSettingsError ? { detail: error.message } : {}),
          });
        }
      },
    );
    return () => {
      current = false;
    };
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
