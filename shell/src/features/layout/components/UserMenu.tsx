// The user menu in the top bar: the pages, About and Logout. A chunk of its own, loaded after the first page.
import { useEffect, useRef } from 'react';
import { useNavigate } from 'shared-router';
import { LogoutOutlined } from 'shared-ui';
import { Dropdown, type MenuProps } from 'shared-ui/menus';
import type { PortalPage } from '../../../config/pages.js';
import { UserMenuButton } from './UserMenuButton.js';

export interface UserMenuProps {
  userName: string;
  pages: readonly PortalPage[];
  onLogout: () => void;
  /** The menu's About: the builds this page runs. */
  onAbout?: (() => void) | undefined;
  narrow: boolean;
  /** The button before this one (UserMenuPlaceholder) was pressed: open at once. */
  openOnMount?: boolean;
  /** The button before this one had the focus: this one takes it over. */
  focusOnMount?: boolean;
}

const LOGOUT_KEY = 'logout';
const ABOUT_KEY = 'about';
/** Above antd's notifications (zIndexPopupBase 1000 + 1000 + 50). */
const MENU_Z_INDEX = 2100;

/**
 * The user menu: the pages, About and Logout, in antd's Dropdown. Its own chunk with 'shared-ui/menus', loaded
 * after the first page (TopBar): until then the bar shows the same button without the menu.
 */
export function UserMenu({
  userName,
  pages,
  onLogout,
  onAbout,
  narrow,
  openOnMount = false,
  focusOnMount = false,
}: UserMenuProps) {
  const navigate = useNavigate();
  const menuButton = useRef<HTMLButtonElement>(null);
  const items: MenuProps['items'] = [
    ...pages.map((page) => ({ key: page.path, label: page.label })),
    { type: 'divider' as const },
    ...(onAbout ? [{ key: ABOUT_KEY, label: 'About' }] : []),
    { key: LOGOUT_KEY, label: 'Logout', icon: <LogoutOutlined /> },
  ];
  const onMenuClick: MenuProps['onClick'] = ({ key }) => {
    if (key === LOGOUT_KEY) onLogout();
    else if (key === ABOUT_KEY) onAbout?.();
    else void navigate(key);
  };
  // Escape closes the menu but left the focus on its hidden entry (lost to the page): back to the button.
  // rc-dropdown has code for this that did not take effect here (seen in Chromium and in jsdom).
  const onMenuKeyDown: MenuProps['onKeyDown'] = (event) => {
    if (event.key === 'Escape') menuButton.current?.focus();
  };

  // Once, on mount (not again in StrictMode's second run): this button replaces the one the user was on, and does
  // what they asked of that one.
  const mountRequest = useRef<{ open: boolean; focus: boolean } | null>({
    open: openOnMount,
    focus: focusOnMount,
  });
  useEffect(() => {
    const request = mountRequest.current;
    mountRequest.current = null;
    if (!request) return;
    if (request.focus || request.open) menuButton.current?.focus();
    if (request.open) menuButton.current?.click();
  }, []);

  return (
    // autoFocus: opened from the keyboard, the menu takes the focus, so the arrow keys move through it. The open
    // menu stands in front of the toasts (antd's notification layer is 2050), which start below the header but on
    // the menu's side: a toast never takes the click meant for Logout.
    <Dropdown
      menu={{ items, onClick: onMenuClick, onKeyDown: onMenuKeyDown }}
      trigger={['click']}
      autoFocus
      styles={{ root: { zIndex: MENU_Z_INDEX } }}
    >
      <UserMenuButton ref={menuButton} userName={userName} narrow={narrow} />
    </Dropdown>
  );
}
