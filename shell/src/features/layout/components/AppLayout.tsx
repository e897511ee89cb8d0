import type { ReactNode } from 'react';
import { Layout } from 'shared-ui';
import type { Settings } from 'shared-auth';
import { visiblePages, type PortalPage } from '../../../config/pages.js';
import { TopBar } from './TopBar.js';
import { SideNav } from './SideNav.js';
import { PortalFooter } from './PortalFooter.js';

export const MAIN_CONTENT_ID = 'main-content';

interface AppLayoutProps {
  settings: Settings;
  userName: string;
  isFederated: boolean;
  onLogout: () => void;
  /** A navigation link is hovered or focused. */
  onPageInterest?: (page: PortalPage) => void;
  children: ReactNode;
}

export function AppLayout({
  settings,
  userName,
  isFederated,
  onLogout,
  onPageInterest,
  children,
}: AppLayoutProps) {
  const pages = visiblePages(isFederated);
  return (
    <Layout style={{ minHeight: '100vh' }}>
      <TopBar
        headerLinks={settings.HeaderLinks}
        userName={userName}
        pages={pages}
        onLogout={onLogout}
        mainContentId={MAIN_CONTENT_ID}
      />
      <Layout>
        <SideNav pages={pages} onPageInterest={onPageInterest} />
        <Layout.Content
          id={MAIN_CONTENT_ID}
          tabIndex={-1}
          role="main"
          style={{ padding: 24, background: '#fff', outline: 'none' }}
        >
          {children}
        </Layout.Content>
      </Layout>
      <PortalFooter footerLinks={settings.FooterLinks} socialLinks={settings.SocialLinks} />
    </Layout>
  );
}
