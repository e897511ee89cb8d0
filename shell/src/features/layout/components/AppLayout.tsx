import { useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useLocation } from 'shared-router';
import { Layout } from 'shared-ui';
import type { Settings } from 'shared-auth';
import { visiblePages, type PortalPage } from '../../../config/pages.js';
import { useNarrowScreen } from '../hooks/useNarrowScreen.js';
import { TopBar } from './TopBar.js';
import { SideNav } from './SideNav.js';
import { MenuToggle, NarrowMenuPanel } from './NarrowMenu.js';
import { PortalFooter } from './PortalFooter.js';

export const MAIN_CONTENT_ID = 'main-content';

interface AppLayoutProps {
  settings: Settings;
  userName: string;
  isFederated: boolean;
  onLogout: () => void;
  /** The user menu's About. */
  onAbout?: () => void;
  /** A navigation link is hovered or focused. */
  onPageInterest?: (page: PortalPage) => void;
  children: ReactNode;
}

export function AppLayout({
  settings,
  userName,
  isFederated,
  onLogout,
  onAbout,
  onPageInterest,
  children,
}: AppLayoutProps) {
  const pages = visiblePages({ isFederated, accountDataFrom: settings.AccountDataFrom });
  const narrow = useNarrowScreen();
  const { pathname } = useLocation();
  // The narrow screen's menu is open on the page it was opened on: going to another page (its links, the user
  // menu, the browser's Back) closes it.
  const [menuOpenOn, setMenuOpenOn] = useState<string | null>(null);
  const menuOpen = narrow && menuOpenOn === pathname;
  const menuToggle = useRef<HTMLButtonElement>(null);
  // The focus goes back to the Menu button, not lost with the hidden link it was on.
  const closeMenu = () => {
    setMenuOpenOn(null);
    menuToggle.current?.focus();
  };
  const onMenuKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' && menuOpen) {
      event.stopPropagation();
      closeMenu();
    }
  };

  return (
    <Layout style={{ minHeight: '100vh' }}>
      <TopBar
        headerLinks={settings.HeaderLinks}
        userName={userName}
        pages={pages}
        onLogout={onLogout}
        {...(onAbout ? { onAbout } : {})}
        mainContentId={MAIN_CONTENT_ID}
        narrow={narrow}
        menuToggle={
          <MenuToggle
            ref={menuToggle}
            open={menuOpen}
            onToggle={() => setMenuOpenOn(menuOpen ? null : pathname)}
            onKeyDown={onMenuKeyDown}
          />
        }
      />
      {narrow ? (
        <NarrowMenuPanel
          open={menuOpen}
          pages={pages}
          headerLinks={settings.HeaderLinks}
          onPageInterest={onPageInterest}
          onNavigate={closeMenu}
          onKeyDown={onMenuKeyDown}
        />
      ) : null}
      <Layout>
        {narrow ? null : <SideNav pages={pages} onPageInterest={onPageInterest} />}
        <Layout.Content
          id={MAIN_CONTENT_ID}
          tabIndex={-1}
          role="main"
          style={{ padding: narrow ? 16 : 24, background: '#fff', outline: 'none' }}
        >
          {children}
        </Layout.Content>
      </Layout>
      <PortalFooter footerLinks={settings.FooterLinks} socialLinks={settings.SocialLinks} narrow={narrow} />
    </Layout>
  );
}
