import { render, screen } from '@testing-library/react';
import { InvalidSettingsError, type Settings } from 'shared-auth';
import { testSettings } from 'shared-auth/testing';
import { SettingsGate } from './SettingsGate.js';

const settings = testSettings();

describe('SettingsGate', () => {
  beforeEach(() => {
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });

  it('shows Loading until the settings arrive, then renders the portal with them', async () => {
    let resolve!: (value: Settings) => void;
    const load = () => new Promise<Settings>((done) => (resolve = done));
    render(<SettingsGate load={load}>{(loaded) => <p>Client {loaded.ClientId}</p>}</SettingsGate>);

    expect(await screen.findByRole('dialog', { name: 'Loading' })).toBeInTheDocument();
    resolve(settings);
    expect(await screen.findByText('Client account-portal')).toBeInTheDocument();
  });

  it("shows 'Not able to load settings' when the call fails", async () => {
    render(
      <SettingsGate load={() => Promise.reject(new Error('Network Error'))}>
        {() => <p>portal</p>}
      </SettingsGate>,
    );
    expect(await screen.findByText('Not able to load settings')).toBeInTheDocument();
    expect(screen.queryByText('portal')).not.toBeInTheDocument();
  });

  it('names the wrong setting when the settings are invalid', async () => {
    const load = () => Promise.reject(new InvalidSettingsError('Invalid setting Domain: Invalid URL'));
    render(<SettingsGate load={load}>{() => <p>portal</p>}</SettingsGate>);
    expect(await screen.findByText('Not able to load settings')).toBeInTheDocument();
    expect(screen.getByText('Invalid setting Domain: Invalid URL')).toBeInTheDocument();
  });

  it('aborts the call when the portal goes before the settings arrive', async () => {
    const load = jest.fn(({ signal }: { signal: AbortSignal }) => new Promise<Settings>(() => signal));
    const view = render(<SettingsGate load={load}>{() => <p>portal</p>}</SettingsGate>);
    expect(await screen.findByRole('dialog', { name: 'Loading' })).toBeInTheDocument();
    view.unmount();
    expect(load.mock.calls[0]?.[0].signal.aborted).toBe(true);
  });
});
