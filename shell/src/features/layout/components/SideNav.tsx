import type { ReactNode } from 'react';
import { NavLink } from 'shared-router';
import { IdcardOutlined, Layout, LockOutlined, SafetyOutlined } from 'shared-ui';
import type { PortalPage } from '../../../config/pages.js';

interface SideNavProps {
  pages: readonly PortalPage[];
  /** The user shows interest in a page (hover, focus): the portal starts loading its remote. */
  onPageInterest?: (page: PortalPage) => void;
}

const ICONS: Record<string, ReactNode> = {
  '/profile': <IdcardOutlined aria-hidden />,
  '/password': <LockOutlined aria-hidden />,
  '/security': <SafetyOutlined aria-hidden />,
};

// Site navigation is a list of links (NavLink marks the current page with aria-current), not an ARIA menu.
export function SideNav({ pages, onPageInterest }: SideNavProps) {
  return (
    <Layout.Sider
      width={220}
      breakpoint="md"
      collapsedWidth={0}
      theme="light"
      style={{ borderRight: '1px solid #f0f0f0' }}
    >
      <nav aria-label="Account pages">
        <ul style={{ listStyle: 'none', margin: 0, padding: '12px 8px', display: 'grid', gap: 4 }}>
          {pages.map((page) => (
            <li key={page.path}>
              <NavLink
                to={page.path}
                onMouseEnter={() => onPageInterest?.(page)}
                onFocus={() => onPageInterest?.(page)}
                style={({ isActive }) => ({
                  display: 'flex',
                  alignItems: 'center',
                  gap: 10,
                  padding: '10px 16px',
                  borderRadius: 6,
                  color: isActive ? '#a50d26' : '#1f1f1f',
                  background: isActive ? '#fdecef' : 'transparent',
                  fontWeight: isActive ? 600 : 400,
                  textDecoration: 'none',
                })}
              >
                {ICONS[page.path]}
                {page.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
    </Layout.Sider>
  );
}
