import { render, screen } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { PortalThemeProvider } from 'shared-ui';
import type { RemotesConfig } from 'shared-auth';
import { RemotesProvider } from '../hooks/useRemotes.js';
import { PORTAL_PAGES } from '../../../config/pages.js';
import { RemotePage } from './RemotePage.js';

jest.mock('../api/remotesConfig.js', () => ({
  getRemotesConfig: jest.fn(),
  registerPortalRemotes: jest.fn(),
  loadPageModule: jest.fn(),
  preloadPageModule: jest.fn(),
}));

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });
const profilePage = PORTAL_PAGES[0]!;
const passwordPage = PORTAL_PAGES[1]!;
const config: RemotesConfig = {
  remotes: { remote_profile: { entry: 'http://localhost:3001/remoteEntry.js' } },
};

function renderPage(page: typeof profilePage, load: jest.Mock, loadConfig = () => Promise.resolve(config)) {
  render(
    <PortalThemeProvider>
      <MemoryRouter initialEntries={[page.path]}>
        <RemotesProvider load={loadConfig} register={() => undefined}>
          <RemotePage page={page} load={load} />
        </RemotesProvider>
      </MemoryRouter>
    </PortalThemeProvider>,
  );
}

describe('RemotePage', () => {
  beforeEach(() => {
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
