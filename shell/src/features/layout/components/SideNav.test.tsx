import { render, screen } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { PortalThemeProvider } from 'shared-ui';
import { PORTAL_PAGES } from '../../../config/pages.js';
import { SideNav } from './SideNav.js';

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });

describe('SideNav', () => {
  it('tells the portal which page the user shows interest in when its link is hovered or focused', async () => {
    const onPageInterest = jest.fn();
    render(
      <PortalThemeProvider>
        <MemoryRouter initialEntries={['/profile']}>
          <SideNav pages={PORTAL_PAGES} onPageInterest={onPageInterest} />
        </MemoryRouter>
      </PortalThemeProvider>,
    );
    await userEvent.hover(screen.getByRole('link', { name: 'Password' }));
    expect(onPageInterest).toHaveBeenCalledWith(expect.objectContaining({ remote: 'remote_password' }));
    screen.getByRole('link', { name: 'Security' }).focus();
    expect(onPageInterest).toHaveBeenCalledWith(expect.objectContaining({ remote: 'remote_security' }));
    await userEvent.hover(screen.getByRole('link', { name: 'Devices & activity' }));
    expect(onPageInterest).toHaveBeenCalledWith(expect.objectContaining({ remote: 'remote_activity' }));
  });
});
