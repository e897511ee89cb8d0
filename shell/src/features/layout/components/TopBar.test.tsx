import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import { PortalThemeProvider } from 'shared-ui';
import { firstPageShown } from '../../../lib/afterFirstPage.js';
import { TopBar } from './TopBar.js';

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });

// Its own file: the user menu's chunk loads once per page (module state), and these tests watch it arrive.
describe('TopBar user menu', () => {
  it('shows its button at once and brings the menu after the first page, the focus kept on the button', async () => {
    render(
      <PortalThemeProvider>
        <MemoryRouter initialEntries={['/profile']}>
          <TopBar
            headerLinks={{}}
            userName="Alice Liddell"
            pages={[
              { path: '/profile', label: 'My Profile', remote: 'remote_profile', forFederatedUsers: true },
            ]}
            onLogout={jest.fn()}
            mainContentId="main"
          />
        </MemoryRouter>
      </PortalThemeProvider>,
    );
    const before = screen.getByRole('button', { name: 'User menu for Alice Liddell' });
    before.focus();

    act(() => firstPageShown());
    // The menu's button stands in for the first one, and the keyboard user stays on it.
    await waitFor(() =>
      expect(screen.getByRole('button', { name: 'User menu for Alice Liddell' })).not.toBe(before),
    );
    expect(screen.getByRole('button', { name: 'User menu for Alice Liddell' })).toHaveFocus();
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();

    await userEvent.keyboard('{Enter}');
    const menu = await screen.findByRole('menu');
    expect(
      within(menu)
        .getAllByRole('menuitem')
        .map((item) => item.textContent),
    ).toEqual(['My Profile', 'Logout']);
  });
});
