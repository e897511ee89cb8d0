import { useRef, type ReactNode } from 'react';
import { Button, Layout, Space } from 'shared-ui';
import type { PortalPage } from '../../../config/pages.js';
import { useUserMenu } from '../hooks/useUserMenu.js';
import { UserMenuButton } from './UserMenuButton.js';

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
  const placeholder = useRef<HTMLButtonElement>(null);
  const { menu, placeholderHandlers } = useUserMenu(placeholder);
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
      {/* The menu (antd's Dropdown and Menu) loads after the first page; until then, the same button. */}
      {menu ? (
        <menu.UserMenu
          userName={userName}
          pages={pages}
          onLogout={onLogout}
          onAbout={onAbout}
          narrow={narrow}
          openOnMount={menu.open}
          focusOnMount={menu.focus}
        />
      ) : (
        <UserMenuButton ref={placeholder} userName={userName} narrow={narrow} {...placeholderHandlers} />
      )}
      {/* Last in the bar: the menu it opens comes right after the header, next in the Tab order. */}
      {narrow ? menuToggle : null}
    </Layout.Header>
  );
}
