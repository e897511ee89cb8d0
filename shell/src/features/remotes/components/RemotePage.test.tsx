import { render, screen } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { PortalThemeProvider } from 'shared-ui';
import type { ResolvedRemotes } from 'shared-auth';
import { RemotesProvider, useRemotesForHolder } from '../hooks/useRemotes.js';
import { PORTAL_PAGES } from '../../../config/pages.js';
import { RemotePage } from './RemotePage.js';

jest.mock('../api/remotesConfig.js', () => ({
  getRemotesConfig: jest.fn(),
  registerPortalRemotes: jest.fn(),
  loadPageModule: jest.fn(),
  preloadPageModule: jest.fn(),
  activeVersionOf: jest.fn(() => '1.4.0'),
  reportRenderFailure: jest.fn(),
}));

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });
const profilePage = PORTAL_PAGES[0]!;
const passwordPage = PORTAL_PAGES[1]!;
const config: ResolvedRemotes = {
  remotes: {
    remote_profile: {
      entry: 'http://localhost:3001/remoteEntry.js',
      integrity: null,
      version: '1.4.0',
      buildId: 'b-1',
      channel: 'stable',
      fallback: null,
    },
  },
};

function renderPage(page: typeof profilePage, load: jest.Mock, loadConfig = () => Promise.resolve(config)) {
  render(
    <PortalThemeProvider>
      <MemoryRouter initialEntries={[page.path]}>
        <RemotesProvider load={loadConfig} loadedSignedIn={() => true} register={() => undefined}>
          <RemotePage page={page} load={load} />
        </RemotesProvider>
      </MemoryRouter>
    </PortalThemeProvider>,
  );
}

describe('RemotePage', () => {
  beforeEach(() => {
    jest.clearAllMocks();
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
  });

  it("renders the remote's page component", async () => {
    const load = jest.fn().mockResolvedValue({ default: () => <h1>My Profile</h1> });
    renderPage(profilePage, load);
    expect(await screen.findByRole('heading', { name: 'My Profile' })).toBeInTheDocument();
    expect(load).toHaveBeenCalledWith('remote_profile', false);
  });

  it('contains a remote that cannot load, and Retry loads it once it is back', async () => {
    const load = jest
      .fn()
      .mockRejectedValueOnce(new Error('[ Federation Runtime ]: RUNTIME-003 failed to get remoteEntry'))
      .mockResolvedValue({ default: () => <h1>My Profile</h1> });
    renderPage(profilePage, load);

    expect(await screen.findByText('My Profile could not be loaded')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(
      await screen.findByRole('heading', { name: 'My Profile' }, { timeout: 20_000 }),
    ).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(2);
    expect(load).toHaveBeenLastCalledWith('remote_profile', true);
  });

  it('contains a remote page that throws while rendering', async () => {
    const Broken = () => {
      throw new Error('render failure');
    };
    renderPage(profilePage, jest.fn().mockResolvedValue({ default: Broken }));
    expect(await screen.findByText('My Profile could not be loaded')).toBeInTheDocument();
    const { reportRenderFailure } = jest.requireMock<{ reportRenderFailure: jest.Mock }>(
      '../api/remotesConfig.js',
    );
    expect(reportRenderFailure).toHaveBeenCalledWith(
      'remote_profile',
      expect.objectContaining({ message: 'render failure' }),
    );
  });

  it('marks the page with the release it runs, out of view', async () => {
    renderPage(profilePage, jest.fn().mockResolvedValue({ default: () => <h1>My Profile</h1> }));
    const heading = await screen.findByRole('heading', { name: 'My Profile' });
    expect(heading.closest('[data-remote="remote_profile"]')).toHaveAttribute('data-remote-version', '1.4.0');
  });

  function renderForHolder(
    first: ResolvedRemotes,
    loadSignedIn: jest.Mock,
    load: jest.Mock,
    register: (config: ResolvedRemotes) => void = () => undefined,
  ) {
    function Holder() {
      useRemotesForHolder('holder-token');
      return <RemotePage page={profilePage} load={load} />;
    }
    render(
      <PortalThemeProvider>
        <MemoryRouter initialEntries={['/profile']}>
          <RemotesProvider
            load={() => Promise.resolve(first)}
            loadedSignedIn={() => false}
            loadSignedIn={loadSignedIn}
            register={register}
          >
            <Holder />
          </RemotesProvider>
        </MemoryRouter>
      </PortalThemeProvider>,
    );
  }

  it("loads a page started without the holder's token from the holder's set once they are signed in", async () => {
    const { preloadPageModule } = jest.requireMock<{ preloadPageModule: jest.Mock }>(
      '../api/remotesConfig.js',
    );
    const canary: ResolvedRemotes = {
      remotes: { remote_profile: { ...config.remotes.remote_profile!, version: '1.5.0', channel: 'canary' } },
    };
    const register = jest.fn();
    const loadSignedIn = jest.fn().mockResolvedValue(canary);
    const load = jest.fn(() => {
      // The page's remote loads only after the holder's set is registered.
      expect(register).toHaveBeenLastCalledWith(canary);
      return Promise.resolve({ default: () => <h1>My Profile</h1> });
    });
    renderForHolder(config, loadSignedIn, load, register);
    expect(await screen.findByRole('heading', { name: 'My Profile' })).toBeInTheDocument();
    expect(loadSignedIn).toHaveBeenCalledWith('holder-token', expect.any(AbortSignal));
    expect(register.mock.calls).toEqual([[config], [canary]]);
    expect(load).toHaveBeenCalledTimes(1);
    // The anonymous set's remote is not fetched ahead: it may not be the holder's.
    expect(preloadPageModule).not.toHaveBeenCalled();
  });

  it("still loads the page from the anonymous set when the holder's cannot be had", async () => {
    jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    const loadSignedIn = jest.fn().mockRejectedValue(new Error('/remotes.json answered 503'));
    const load = jest.fn().mockResolvedValue({ default: () => <h1>My Profile</h1> });
    renderForHolder(config, loadSignedIn, load);
    expect(await screen.findByRole('heading', { name: 'My Profile' })).toBeInTheDocument();
    expect(loadSignedIn).toHaveBeenCalledTimes(1);
  });

  it('asks nothing more when the set has no release in it (no canary can apply)', async () => {
    const bootstrapOnly: ResolvedRemotes = {
      remotes: {
        remote_profile: {
          ...config.remotes.remote_profile!,
          version: null,
          integrity: null,
          channel: 'bootstrap',
        },
      },
    };
    const loadSignedIn = jest.fn();
    const load = jest.fn().mockResolvedValue({ default: () => <h1>My Profile</h1> });
    renderForHolder(bootstrapOnly, loadSignedIn, load);
    expect(await screen.findByRole('heading', { name: 'My Profile' })).toBeInTheDocument();
    expect(loadSignedIn).not.toHaveBeenCalled();
  });

  it('shows the contained not-available view for a page whose remote is not deployed', async () => {
    const load = jest.fn();
    renderPage(passwordPage, load);
    expect(await screen.findByText('Password is not available')).toBeInTheDocument();
    expect(load).not.toHaveBeenCalled();
  });

  it("starts loading the landing page's remote as soon as the remotes are registered", async () => {
    const { preloadPageModule } = jest.requireMock<{ preloadPageModule: jest.Mock }>(
      '../api/remotesConfig.js',
    );
    renderPage(profilePage, jest.fn().mockResolvedValue({ default: () => <h1>My Profile</h1> }));
    await screen.findByRole('heading', { name: 'My Profile' });
    expect(preloadPageModule).toHaveBeenCalledWith('remote_profile');
  });

  it('says which setting is wrong when the remotes configuration cannot be used', async () => {
    const load = jest.fn();
    renderPage(profilePage, load, () =>
      Promise.reject(new Error('Invalid setting in /remotes.json: remotes')),
    );
    expect(await screen.findByText('Invalid setting in /remotes.json: remotes')).toBeInTheDocument();
    expect(load).not.toHaveBeenCalled();
  });
});
