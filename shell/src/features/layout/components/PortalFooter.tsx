import { Flex, Layout, Typography } from 'shared-ui';
import type { FooterLinks } from 'shared-auth';

interface PortalFooterProps {
  footerLinks: FooterLinks;
  socialLinks: Record<string, string>;
  year?: number;
  /** A narrow screen: 16 px at the sides, as the page, instead of antd's 50 px. */
  narrow?: boolean;
}

function LinkList({ links }: { links: Record<string, string> }) {
  return (
    <ul style={{ listStyle: 'none', margin: 0, padding: 0, display: 'grid', gap: 6 }}>
      {Object.entries(links).map(([label, href]) => (
        <li key={label}>
          <a href={href}>{label}</a>
        </li>
      ))}
    </ul>
  );
}

export function PortalFooter({
  footerLinks,
  socialLinks,
  year = new Date().getFullYear(),
  narrow = false,
}: PortalFooterProps) {
  return (
    <Layout.Footer
      style={{
        background: '#fafafa',
        borderTop: '1px solid #f0f0f0',
        ...(narrow ? { paddingInline: 16 } : {}),
      }}
    >
      <Flex gap={48} wrap>
        {Object.entries(footerLinks.sections).map(([section, links]) => (
          <nav key={section} aria-label={section}>
            <Typography.Title level={2} style={{ fontSize: 14, marginTop: 0 }}>
              {section}
            </Typography.Title>
            <LinkList links={links} />
          </nav>
        ))}
        {Object.keys(socialLinks).length > 0 ? (
          <nav aria-label="Follow us">
            <Typography.Title level={2} style={{ fontSize: 14, marginTop: 0 }}>
              Follow us
            </Typography.Title>
            <LinkList links={socialLinks} />
          </nav>
        ) : null}
      </Flex>
      <Flex gap={16} wrap align="center" style={{ marginTop: 24 }}>
        <span>© {year} F5, Inc. All rights reserved.</span>
        <nav aria-label="Policies">
          <Flex gap={16} wrap>
            {Object.entries(footerLinks.policies).map(([label, href]) => (
              <a key={label} href={href}>
                {label}
              </a>
            ))}
          </Flex>
        </nav>
        {/* A consent manager (cookie banner) mounts here when a deployment adds one. */}
        <div id="consent-placeholder" data-testid="consent-placeholder" />
      </Flex>
    </Layout.Footer>
  );
}
