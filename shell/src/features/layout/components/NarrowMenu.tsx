import type { KeyboardEvent, Ref } from 'react';
import { Button } from 'shared-ui';
import type { PortalPage } from '../../../config/pages.js';
import { PageLinks } from './SideNav.js';

export const NARROW_MENU_ID = 'narrow-menu';

/** antd's "bars" outline, drawn here: shared-ui exports no menu icon. */
function BarsIcon() {
  return (
    <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden focusable="false" fill="currentColor">
      <rect x="3" y="5" width="18" height="2" rx="1" />
      <rect x="3" y="11" width="18" height="2" rx="1" />
      <rect x="3" y="17" width="18" height="2" rx="1" />
    </svg>
  );
}

interface MenuToggleProps {
  open: boolean;
  onToggle: () => void;
  onKeyDown: (event: KeyboardEvent) => void;
  ref?: Ref<HTMLButtonElement>;
}

/** The header's Menu button on a narrow screen: a disclosure button for NarrowMenuPanel (44 × 44 px). */
export function MenuToggle({ open, onToggle, onKeyDown, ref }: MenuToggleProps) {
  return (
    <Button
      ref={ref}
      type="text"
      aria-label="Menu"
      aria-expanded={open}
      aria-controls={NARROW_MENU_ID}
      onClick={onToggle}
      onKeyDown={onKeyDown}
      icon={<BarsIcon />}
      style={{ color: '#fff', width: 44, height: 44, flexShrink: 0 }}
    />
  );
}

interface NarrowMenuPanelProps {
  open: boolean;
  pages: readonly PortalPage[];
  headerLinks: Record<string, string>;
  onPageInterest?: (page: PortalPage) => void;
  /** A page was chosen: the panel closes. */
  onNavigate: () => void;
  onKeyDown: (event: KeyboardEvent) => void;
}

const ROW_STYLE = { display: 'block', padding: '12px 16px', color: '#1f1f1f' } as const;

/**
 * What the Menu button opens on a narrow screen: the account pages and the header links, full width under the
 * header, in the page's flow (it pushes the page down; it never covers it). Hidden, its links are out of the tab
 * order and the accessibility tree.
 */
export function NarrowMenuPanel({
  open,
  pages,
  headerLinks,
  onPageInterest,
  onNavigate,
  onKeyDown,
}: NarrowMenuPanelProps) {
  return (
    // No display style on this element: it would override `hidden`.
    <div id={NARROW_MENU_ID} hidden={!open} onKeyDown={onKeyDown}>
      <div style={{ background: '#fff', borderBottom: '1px solid #f0f0f0' }}>
        <PageLinks
          pages={pages}
          onPageInterest={onPageInterest}
          onNavigate={onNavigate}
          linkPaddingBlock={12}
        />
        {Object.keys(headerLinks).length > 0 ? (
          <nav aria-label="Header links" style={{ borderTop: '1px solid #f0f0f0' }}>
            <ul style={{ listStyle: 'none', margin: 0, padding: '8px', display: 'grid', gap: 4 }}>
              {Object.entries(headerLinks).map(([label, href]) => (
                <li key={label}>
                  <a href={href} style={ROW_STYLE}>
                    {label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        ) : null}
      </div>
    </div>
  );
}
