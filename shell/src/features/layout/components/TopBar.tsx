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
import type { PortalPage } from '../../remotes/pages.js';

interface TopBarProps {
  headerLinks: Record<string, string>;
  userName: string;
  pages: readonly PortalPage[];
  onLogout: () => void;
  mainContentId: string;
}

const LOGOUT_KEY = 'logout';

export function TopBar({ headerLinks, userName, pages, onLogout, mainContentId }: TopBarProps) {
  const navigate = useNavigate();
  const items: MenuProps['items'] = [
    ...pages.map((page) => ({ key: page.path, label: page.label })),
    { type: 'divider' as const },
    { key: LOGOUT_KEY, label: 'Logout', icon: <LogoutOutlined /> },
  ];
  const onMenuClick: MenuProps['onClick'] = ({ key }) => {
    if (key === LOGOUT_KEY) onLogout();
    else void navigate(key);
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
      {/* autoFocus: opened from the keyboard, the menu takes the focus, so the arrow keys move through it. */}
      <Dropdown menu={{ items, onClick: onMenuClick }} trigger={['click']} autoFocus>
        <Button type="text" style={{ color: '#fff' }} aria-label={`User menu for ${userName}`}>
          <UserOutlined />
          <span>{userName}</span>
          <DownOutlined />
        </Button>
      </Dropdown>
    </Layout.Header>
  );
}
