import type { ReactNode } from 'react';
import { NavLink } from 'shared-router';
import { IdcardOutlined, Layout, LockOutlined, SafetyOutlined } from 'shared-ui';
import type { PortalPage } from '../../../config/pages.js';

interface PageLinksProps {
  pages: readonly PortalPage[];
  /** The user shows interest in a page (hover, focus): the portal starts loading its remote. */
  onPageInterest?: (page: PortalPage) => void;
  /** A page's link is followed (clicked, or Enter). */
  onNavigate?: () => void;
  /** Vertical padding of each link: 10 px in the side navigation, more for a finger in the narrow menu. */
  linkPaddingBlock?: number;
}

/** A laptop and a phone, drawn here: shared-ui exports no devices icon (and a remote's page needs none of antd's). */
function DevicesIcon() {
  return (
    <svg
      viewBox="0 0 24 24"
      width="1em"
      height="1em"
      aria-hidden
      focusable="false"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
    >
      <rect x="2" y="4.5" width="13" height="9.5" rx="1.5" />
      <path d="M1 17.5h15" />
      <rect x="17.5" y="8" width="5.5" height="11" rx="1.5" />
    </svg>
  );
}

/** Each page's icon; a page without one shows its label alone. */
const ICONS: Record<string, ReactNode> = {
  '/profile': <IdcardOutlined aria-hidden />,
  '/password': <LockOutlined aria-hidden />,
  '/security': <SafetyOutlined aria-hidden />,
  '/activity': <DevicesIcon />,
};

// Site navigation is a list of links (NavLink marks the current page with aria-current), not an ARIA menu.
/** The account pages' navigation: in the side navigation on a wide screen, in the header's Menu on a narrow one. */
export function PageLinks({ pages, onPageInterest, onNavigate, linkPaddingBlock = 10 }: PageLinksProps) {
  return (
    <nav aria-label="Account pages">
      <ul style={{ listStyle: 'none', margin: 0, padding: '12px 8px', display: 'grid', gap: 4 }}>
        {pages.map((page) => (
          <li key={page.path}>
            <NavLink
              to={page.path}
              onMouseEnter={() => onPageInterest?.(page)}
              onFocus={() => onPageInterest?.(page)}
              onClick={onNavigate}
              style={({ isActive }) => ({
                display: 'flex',
                alignItems: 'center',
                gap: 10,
                padding: `${linkPaddingBlock}px 16px`,
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
  );
}

type SideNavProps = Pick<PageLinksProps, 'pages' | 'onPageInterest'>;

/**
 * The side navigation of a wide screen. It never collapses by itself: on a narrow screen the layout shows the
 * header's Menu button instead (antd's own collapsed trigger is a bare span, not a button, and sat over the heading).
 */
export function SideNav({ pages, onPageInterest }: SideNavProps) {
  return (
    <Layout.Sider width={220} theme="light" style={{ borderRight: '1px solid #f0f0f0' }}>
      <PageLinks pages={pages} onPageInterest={onPageInterest} />
    </Layout.Sider>
  );
}
