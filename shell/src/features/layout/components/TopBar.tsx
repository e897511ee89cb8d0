import { useRef } from 'react';
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
  mainContentId: string;
}

const LOGOUT_KEY = 'logout';
/** Above antd's notifications (zIndexPopupBase 1000 + 1000 + 50). */
const MENU_Z_INDEX = 2100;

export function TopBar({ headerLinks, userName, pages, onLogout, mainContentId }: TopBarProps) {
  const navigate = useNavigate();
  const menuButton = useRef<HTMLButtonElement>(null);
  const items: MenuProps['items'] = [
    ...pages.map((page) => ({ key: page.path, label: page.label })),
    { type: 'divider' as const },
    { key: LOGOUT_KEY, label: 'Logout', icon: <LogoutOutlined /> },
  ];
  const onMenuClick: MenuProps['onClick'] = ({ key }) => {
    if (key === LOGOUT_KEY) onLogout();
    else void navigate(key);
  };
  // Escape closes the menu but left the focus on its hidden entry (lost to the page): back to the button.
  // rc-dropdown has code for this that did not take effect here (seen in Chromium and in jsdom).
  const onMenuKeyDown: MenuProps['onKeyDown'] = (event) => {
    if (event.key === 'Escape') menuButton.current?.focus();
  };

  return (
    <Layout.Header
      style={{ display: 'flex', alignItems: 'center', gap: 24, background: '#1f1f1f', paddingInline: 24 }}
    >
      <Button className="skip-link" onClick={() => document.getElementById(mainContentId)?.focus()}>
        Skip to content
      </Button>
      <strong style={{ color: '#fff', fontSize: 18, whiteSpace: 'nowrap' }}>Account</strong>
      <nav aria-label="Header links" style={{ flex: 1, overflow: 'hidden' }}>
        <Space size="middle" wrap={false}>
          {Object.entries(headerLinks).map(([label, href]) => (
            <a key={label} href={href} style={{ color: '#fff' }}>
              {label}
            </a>
          ))}
        </Space>
      </nav>
      {/* autoFocus: opened from the keyboard, the menu takes the focus, so the arrow keys move through it.
          The open menu stands in front of the toasts (antd's notification layer is 2050), which start below the
          header but on the menu's side: a toast never takes the click meant for Logout. */}
      <Dropdown
        menu={{ items, onClick: onMenuClick, onKeyDown: onMenuKeyDown }}
        trigger={['click']}
        autoFocus
        styles={{ root: { zIndex: MENU_Z_INDEX } }}
      >
        <Button
          ref={menuButton}
          type="text"
          style={{ color: '#fff' }}
          aria-label={`User menu for ${userName}`}
        >
          <UserOutlined />
          <span>{userName}</span>
          <DownOutlined />
        </Button>
      </Dropdown>
    </Layout.Header>
  );
}
