import { useRef, type ReactNode } from 'react';
import { useNavigate } from 'shared-router';
import {
  Button,
  DownOutlined,
  Dropdown,
  Layout,
  LogoutOutlined,
  Space,
  UserOutlined,
  type MenuProps,
} from 'shared-ui';
import type { PortalPage } from '../../../config/pages.js';

interface TopBarProps {
  headerLinks: Record<string, string>;
  userName: string;
  pages: readonly PortalPage[];
  onLogout: () => void;
  /** The user menu's About: the builds this page runs. */
  onAbout?: () => void;
  mainContentId: string;
  /**
   * A narrow screen (useNarrowScreen): the header ends with `menuToggle` and leaves the header links to the menu it
   * opens, so the bar fits 320 px.
   */
  narrow?: boolean;
  menuToggle?: ReactNode;
}

const LOGOUT_KEY = 'logout';
const ABOUT_KEY = 'about';
/** Above antd's notifications (zIndexPopupBase 1000 + 1000 + 50). */
const MENU_Z_INDEX = 2100;

export function TopBar({
  headerLinks,
  userName,
  pages,
  onLogout,
  onAbout,
  mainContentId,
  narrow = false,
  menuToggle,
}: TopBarProps) {
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

  return (
    <Layout.Header
      style={{
        display: 'flex',
        alignItems: 'center',
        gap: narrow ? 8 : 24,
        background: '#1f1f1f',
        // Narrow: the brand lines up with the page's 16 px; the Menu button's own 44 px give it room at the end.
        paddingInline: narrow ? '16px 8px' : 24,
      }}
    >
      <Button className="skip-link" onClick={() => document.getElementById(mainContentId)?.focus()}>
        Skip to content
      </Button>
      <strong style={{ color: '#fff', fontSize: 18, whiteSpace: 'nowrap', flexShrink: 0 }}>Account</strong>
      {narrow ? (
        <span style={{ flex: 1 }} />
      ) : (
        <nav aria-label="Header links" style={{ flex: 1, overflow: 'hidden' }}>
          <Space size="middle" wrap={false}>
            {Object.entries(headerLinks).map(([label, href]) => (
              <a key={label} href={href} style={{ color: '#fff' }}>
                {label}
              </a>
            ))}
          </Space>
        </nav>
      )}
      {/* autoFocus: opened from the keyboard, the menu takes the focus, so the arrow keys move through it.
          The open menu stands in front of the toasts (antd's notification layer is 2050), which start below the
          header but on the menu's side: a toast never takes the click meant for Logout. */}
      <Dropdown
        menu={{ items, onClick: onMenuClick, onKeyDown: onMenuKeyDown }}
        trigger={['click']}
        autoFocus
        styles={{ root: { zIndex: MENU_Z_INDEX } }}
      >
        {/* A long name gives way (ellipsis) rather than push the bar wider than the screen; the button's name keeps
            it whole. */}
        <Button
          ref={menuButton}
          type="text"
          style={{ color: '#fff', minWidth: 0, ...(narrow ? { height: 44, paddingInline: 8 } : {}) }}
          aria-label={`User menu for ${userName}`}
        >
          <UserOutlined />
          <span style={{ minWidth: 0, overflow: 'hidden', textOverflow: 'ellipsis', whiteSpace: 'nowrap' }}>
            {userName}
          </span>
          <DownOutlined />
        </Button>
      </Dropdown>
      {/* Last in the bar: the menu it opens comes right after the header, next in the Tab order. */}
      {narrow ? menuToggle : null}
    </Layout.Header>
  );
}
