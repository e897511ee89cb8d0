/**
 * The support link of the settings' FooterLinks, for the pages that send the holder to support (a password reset
 * that cannot go on without a lost second factor): the "Contact…" link of a Support (or Help) section, else that
 * section's first link, else any footer link labelled support, contact or help; none when the footer has none.
 */
import type { FooterLinks } from 'shared-auth/contract';

export interface SupportLink {
  label: string;
  href: string;
}

const SUPPORT = /support|help|contact/i;

export function supportLinkOf(footer: FooterLinks): SupportLink | undefined {
  const sections = Object.entries(footer.sections);
  for (const [name, links] of sections) {
    if (!/support|help/i.test(name)) continue;
    const entries = Object.entries(links);
    const chosen = entries.find(([label]) => /contact/i.test(label)) ?? entries[0];
    if (chosen) return { label: chosen[0], href: chosen[1] };
  }
  const all = [...sections.flatMap(([, links]) => Object.entries(links)), ...Object.entries(footer.policies)];
  const found = all.find(([label]) => SUPPORT.test(label));
  return found ? { label: found[0], href: found[1] } : undefined;
}
