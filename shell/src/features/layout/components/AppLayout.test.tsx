import { render, screen, waitFor, within } from '@testing-library/react';
import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';
import { MemoryRouter, useLocation } from 'react-router';
import { PortalThemeProvider } from 'shared-ui';
import type { Settings } from 'shared-auth';
import { NARROW_SCREEN_QUERY } from '../hooks/useNarrowScreen.js';
import { AppLayout } from './AppLayout.js';

const userEvent = userEventLib.setup({ delay: null, pointerEventsCheck: PointerEventsCheckLevel.Never });

const settings: Settings = {
  Domain: 'http://localhost:3000',
  ClientId: 'account-portal',
  HeaderLinks: { Support: 'https://www.example.com/support' },
  FooterLinks: {
    sections: { Products: { Networking: 'https://www.example.com/networking' } },
    policies: { 'Privacy policy': 'https://www.example.com/privacy' },
  },
  SocialLinks: { LinkedIn: 'https://www.linkedin.com/' },
  FlagBaseUrl: '/flags/4x3',
  AccountDataFrom: 'portal',
};

/** The address the layout's links lead to, shown as the page's content. */
function CurrentPath() {
  return <p>At {useLocation().pathname}</p>;
}

function renderLayout({
  isFederated = false,
  accountDataFrom = 'portal',
  onLogout = jest.fn(),
}: {
  isFederated?: boolean;
  accountDataFrom?: Settings['AccountDataFrom'];
  onLogout?: () => void;
} = {}) {
  render(
    <PortalThemeProvider>
      <MemoryRouter initialEntries={['/profile']}>
        <AppLayout
          settings={{ ...settings, AccountDataFrom: accountDataFrom }}
          userName="Alice Liddell"
          isFederated={isFederated}
          onLogout={onLogout}
        >
          <p>page content</p>
          <CurrentPath />
        </AppLayout>
      </MemoryRouter>
    </PortalThemeProvider>,
  );
  return { onLogout };
}

const textsOf = (elements: HTMLElement[]) => elements.map((element) => element.textContent);

/** Clicks the user menu's button; the menu, once open. */
async function openUserMenu() {
  await userEvent.click(screen.getByRole('button', { name: 'User menu for Alice Liddell' }));
  return screen.findByRole('menu');
}

describe('AppLayout', () => {
  it('has a skip button that moves focus to the main content', async () => {
    renderLayout();
    await userEvent.click(screen.getByRole('button', { name: 'Skip to content' }));
    expect(screen.getByRole('main')).toHaveFocus();
    expect(screen.getByRole('main')).toHaveTextContent('page content');
  });

  it('shows the header links from the settings', () => {
    renderLayout();
    const header = screen.getByRole('navigation', { name: 'Header links' });
    expect(within(header).getByRole('link', { name: 'Support' })).toHaveAttribute(
      'href',
      'https://www.example.com/support',
    );
  });

  it('lists My Profile, Password, Security and Devices & activity in the side navigation for a regular user', () => {
    renderLayout();
    const nav = screen.getByRole('navigation', { name: 'Account pages' });
    expect(textsOf(within(nav).getAllByRole('link'))).toEqual([
      'My Profile',
      'Password',
      'Security',
      'Devices & activity',
    ]);
  });

  it('leads to Devices & activity from the side navigation and from the user menu', async () => {
    renderLayout();
    const nav = screen.getByRole('navigation', { name: 'Account pages' });
    await userEvent.click(within(nav).getByRole('link', { name: 'Devices & activity' }));
    expect(screen.getByRole('main')).toHaveTextContent('At /activity');
    expect(within(nav).getByRole('link', { name: 'Devices & activity' })).toHaveAttribute(
      'aria-current',
      'page',
    );

    await userEvent.click(within(nav).getByRole('link', { name: 'My Profile' }));
    const menu = await openUserMenu();
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'Devices & activity' }));
    expect(screen.getByRole('main')).toHaveTextContent('At /activity');
  });

  it('offers the user menu, named after the user, with the pages and Logout', async () => {
    const { onLogout } = renderLayout();
    const menu = await openUserMenu();
    expect(textsOf(within(menu).getAllByRole('menuitem'))).toEqual([
      'My Profile',
      'Password',
      'Security',
      'Devices & activity',
      'Logout',
    ]);
    await userEvent.click(within(menu).getByRole('menuitem', { name: /Logout/ }));
    expect(onLogout).toHaveBeenCalledTimes(1);
  });

  // The arrow keys between the entries are checked in Chromium (e2e keyboard.spec.ts): jsdom has no layout.
  it('opens the user menu from the keyboard with the focus on its first entry', async () => {
    renderLayout();
    screen.getByRole('button', { name: 'User menu for Alice Liddell' }).focus();
    await userEvent.keyboard('{Enter}');
    const menu = await screen.findByRole('menu');
    await waitFor(() => expect(within(menu).getByRole('menuitem', { name: 'My Profile' })).toHaveFocus());
  });

  it('closes the user menu on Escape and returns the focus to its button', async () => {
    renderLayout();
    const button = screen.getByRole('button', { name: 'User menu for Alice Liddell' });
    button.focus();
    await userEvent.keyboard('{Enter}');
    const menu = await screen.findByRole('menu');
    await waitFor(() => expect(within(menu).getByRole('menuitem', { name: 'My Profile' })).toHaveFocus());
    await userEvent.keyboard('{Escape}');
    // The button the menu came with (after the first page) stands in for the one pressed: the same name.
    expect(screen.getByRole('button', { name: 'User menu for Alice Liddell' })).toHaveFocus();
  });

  it("hides Password, Security and Devices & activity from federated users where the data is the portal's", async () => {
    renderLayout({ isFederated: true, accountDataFrom: 'portal' });
    const nav = screen.getByRole('navigation', { name: 'Account pages' });
    expect(textsOf(within(nav).getAllByRole('link'))).toEqual(['My Profile']);
    const menu = await openUserMenu();
    expect(textsOf(within(menu).getAllByRole('menuitem'))).toEqual(['My Profile', 'Logout']);
  });

  it("shows Devices & activity to federated users where the data is the org's (Okta), in the navigation and the user menu", async () => {
    renderLayout({ isFederated: true, accountDataFrom: 'org' });
    const nav = screen.getByRole('navigation', { name: 'Account pages' });
    expect(textsOf(within(nav).getAllByRole('link'))).toEqual(['My Profile', 'Devices & activity']);
    const menu = await openUserMenu();
    expect(textsOf(within(menu).getAllByRole('menuitem'))).toEqual([
      'My Profile',
      'Devices & activity',
      'Logout',
    ]);
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'Devices & activity' }));
    expect(screen.getByRole('main')).toHaveTextContent('At /activity');
  });

  it('shows every page to a regular user whatever the data is', () => {
    renderLayout({ accountDataFrom: 'org' });
    const nav = screen.getByRole('navigation', { name: 'Account pages' });
    expect(textsOf(within(nav).getAllByRole('link'))).toEqual([
      'My Profile',
      'Password',
      'Security',
      'Devices & activity',
    ]);
  });

  it('shows the footer sections, policies, social links and the copyright of the current year', () => {
    renderLayout();
    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByRole('navigation', { name: 'Products' })).toHaveTextContent('Networking');
    expect(within(footer).getByRole('link', { name: 'Privacy policy' })).toBeInTheDocument();
    expect(within(footer).getByRole('link', { name: 'LinkedIn' })).toBeInTheDocument();
    expect(footer).toHaveTextContent(`© ${new Date().getFullYear()}`);
    expect(within(footer).getByTestId('consent-placeholder')).toBeInTheDocument();
  });
});

describe('AppLayout navigation', () => {
  it('marks the current page in the side navigation', () => {
    renderLayout();
    const nav = screen.getByRole('navigation', { name: 'Account pages' });
    expect(within(nav).getByRole('link', { name: 'My Profile' })).toHaveAttribute('aria-current', 'page');
    expect(within(nav).getByRole('link', { name: 'Password' })).not.toHaveAttribute('aria-current');
  });
});

/** A window narrower than 768 px: a phone, or a desktop zoomed to 400 % (320 CSS px). */
function onNarrowScreen() {
  const matchMedia = window.matchMedia;
  jest.spyOn(window, 'matchMedia').mockImplementation((query) => ({
    ...matchMedia(query),
    matches: matchMedia(query).matches || query === NARROW_SCREEN_QUERY,
  }));
}

describe('AppLayout on a narrow screen', () => {
  beforeEach(onNarrowScreen);

  it('folds the side navigation and the header links into a labelled Menu button, closed at first', () => {
    renderLayout();
    const menuButton = screen.getByRole('button', { name: 'Menu' });
    expect(menuButton).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('navigation', { name: 'Account pages' })).not.toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Header links' })).not.toBeInTheDocument();
    // Still in the header: the user menu.
    expect(screen.getByRole('button', { name: 'User menu for Alice Liddell' })).toBeInTheDocument();
  });

  it('opens the menu with the account pages and the header links, and closes it again', async () => {
    renderLayout();
    const menuButton = screen.getByRole('button', { name: 'Menu' });
    await userEvent.click(menuButton);
    expect(menuButton).toHaveAttribute('aria-expanded', 'true');
    const menu = document.getElementById(menuButton.getAttribute('aria-controls') ?? '');
    expect(menu).not.toBeNull();
    const nav = within(menu!).getByRole('navigation', { name: 'Account pages' });
    expect(textsOf(within(nav).getAllByRole('link'))).toEqual([
      'My Profile',
      'Password',
      'Security',
      'Devices & activity',
    ]);
    expect(within(nav).getByRole('link', { name: 'My Profile' })).toHaveAttribute('aria-current', 'page');
    const headerLinks = within(menu!).getByRole('navigation', { name: 'Header links' });
    expect(within(headerLinks).getByRole('link', { name: 'Support' })).toHaveAttribute(
      'href',
      'https://www.example.com/support',
    );

    await userEvent.click(menuButton);
    expect(menuButton).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('navigation', { name: 'Account pages' })).not.toBeInTheDocument();
  });

  it('opens from the keyboard, its pages next in the Tab order, and closes after a page is chosen', async () => {
    renderLayout();
    const menuButton = screen.getByRole('button', { name: 'Menu' });
    menuButton.focus();
    await userEvent.keyboard('{Enter}');
    expect(menuButton).toHaveAttribute('aria-expanded', 'true');
    await userEvent.tab();
    const nav = screen.getByRole('navigation', { name: 'Account pages' });
    expect(within(nav).getByRole('link', { name: 'My Profile' })).toHaveFocus();
    await userEvent.tab();
    expect(within(nav).getByRole('link', { name: 'Password' })).toHaveFocus();
    await userEvent.keyboard('{Enter}');

    expect(screen.getByRole('main')).toHaveTextContent('At /password');
    expect(menuButton).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('navigation', { name: 'Account pages' })).not.toBeInTheDocument();
    // The focus is not lost with the hidden link: it is back on the Menu button.
    expect(menuButton).toHaveFocus();
  });

  it('closes after a page is clicked', async () => {
    renderLayout();
    await userEvent.click(screen.getByRole('button', { name: 'Menu' }));
    await userEvent.click(screen.getByRole('link', { name: 'Security' }));
    expect(screen.getByRole('main')).toHaveTextContent('At /security');
    expect(screen.getByRole('button', { name: 'Menu' })).toHaveAttribute('aria-expanded', 'false');
    expect(screen.queryByRole('link', { name: 'Security' })).not.toBeInTheDocument();
  });

  it('leads to Devices & activity, as a holder opening it from a notice mail on a phone would', async () => {
    renderLayout();
    await userEvent.click(screen.getByRole('button', { name: 'Menu' }));
    await userEvent.click(screen.getByRole('link', { name: 'Devices & activity' }));
    expect(screen.getByRole('main')).toHaveTextContent('At /activity');
    expect(screen.getByRole('button', { name: 'Menu' })).toHaveAttribute('aria-expanded', 'false');
  });

  it('closes on Escape and returns the focus to the Menu button', async () => {
    renderLayout();
    const menuButton = screen.getByRole('button', { name: 'Menu' });
    await userEvent.click(menuButton);
    screen.getByRole('link', { name: 'Password' }).focus();
    await userEvent.keyboard('{Escape}');
    expect(menuButton).toHaveAttribute('aria-expanded', 'false');
    expect(menuButton).toHaveFocus();
    expect(screen.getByRole('main')).toHaveTextContent('At /profile');
  });

  it('closes when the user menu leads to another page', async () => {
    renderLayout();
    const menuButton = screen.getByRole('button', { name: 'Menu' });
    await userEvent.click(menuButton);
    const userMenu = await openUserMenu();
    await userEvent.click(within(userMenu).getByRole('menuitem', { name: 'Password' }));
    expect(screen.getByRole('main')).toHaveTextContent('At /password');
    expect(menuButton).toHaveAttribute('aria-expanded', 'false');
  });

  it("hides Password, Security and Devices & activity from federated users in the menu too (the portal's data)", async () => {
    renderLayout({ isFederated: true, accountDataFrom: 'portal' });
    await userEvent.click(screen.getByRole('button', { name: 'Menu' }));
    const nav = screen.getByRole('navigation', { name: 'Account pages' });
    expect(textsOf(within(nav).getAllByRole('link'))).toEqual(['My Profile']);
  });

  it("shows Devices & activity to federated users in the menu where the data is the org's", async () => {
    renderLayout({ isFederated: true, accountDataFrom: 'org' });
    await userEvent.click(screen.getByRole('button', { name: 'Menu' }));
    const nav = screen.getByRole('navigation', { name: 'Account pages' });
    expect(textsOf(within(nav).getAllByRole('link'))).toEqual(['My Profile', 'Devices & activity']);
  });
});

describe('AppLayout on a wide screen', () => {
  it('has the side navigation and the header links in view, and no Menu button', () => {
    renderLayout();
    expect(screen.queryByRole('button', { name: 'Menu' })).not.toBeInTheDocument();
    expect(screen.getByRole('navigation', { name: 'Account pages' })).toBeVisible();
    expect(screen.getByRole('navigation', { name: 'Header links' })).toBeVisible();
  });
});

describe("the user menu's About", () => {
  it('sits before Logout and opens the builds this page runs', async () => {
    const onAbout = jest.fn();
    render(
      <PortalThemeProvider>
        <MemoryRouter initialEntries={['/profile']}>
          <AppLayout
            settings={settings}
            userName="Alice Liddell"
            isFederated={false}
            onLogout={jest.fn()}
            onAbout={onAbout}
          >
            <p>page content</p>
          </AppLayout>
        </MemoryRouter>
      </PortalThemeProvider>,
    );
    const menu = await openUserMenu();
    expect(textsOf(within(menu).getAllByRole('menuitem')).slice(-2)).toEqual(['About', 'Logout']);
    await userEvent.click(within(menu).getByRole('menuitem', { name: 'About' }));
    expect(onAbout).toHaveBeenCalledTimes(1);
  });
});
