import { render, screen } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { PortalThemeProvider } from 'shared-ui';
import { preloadPageModule } from '../../remotes/api/remotesConfig.js';
import { PORTAL_PAGES } from '../../remotes/pages.js';
import { SideNav } from './SideNav.js';

jest.mock('../../remotes/api/remotesConfig.js', () => ({ preloadPageModule: jest.fn() }));

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });

describe('SideNav', () => {
  it("starts loading a page's remote when its link is hovered or focused", async () => {
    render(
      <PortalThemeProvider>
        <MemoryRouter initialEntries={['/profile']}>
          <SideNav pages={PORTAL_PAGES} />
        </MemoryRouter>
      </PortalThemeProvider>,
    );
    await userEvent.hover(screen.getByRole('link', { name: 'Password' }));
    expect(preloadPageModule).toHaveBeenCalledWith('remote_password');
    screen.getByRole('link', { name: 'Security' }).focus();
    expect(preloadPageModule).toHaveBeenCalledWith('remote_security');
  });
});
