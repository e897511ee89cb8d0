import { REMOTE_PAGES, type RemoteName, type Settings } from 'shared-auth';

export interface PortalPage {
  path: string;
  label: string;
  remote: RemoteName;
  /**
   * Whether federated users see the page. They may not change their password or security settings (spec section
   * 6). Devices & activity is theirs only where its data is the org's ('when-org-data', the settings'
   * AccountDataFrom): the portal's own provider's sessions and events are not their account's, and the server
   * refuses them those calls in embedded mode.
   */
  forFederatedUsers: boolean | 'when-org-data';
}

/** Who is signed in and where the account's data comes from: what decides which pages are shown. */
export interface PageAudience {
  isFederated: boolean;
  accountDataFrom: Settings['AccountDataFrom'];
}

/** The portal's pages. Only the shell knows that remotes exist; each page is one remote's exposed module. */
export const PORTAL_PAGES: readonly PortalPage[] = [
  { path: '/profile', label: 'My Profile', remote: 'remote_profile', forFederatedUsers: true },
  { path: '/password', label: 'Password', remote: 'remote_password', forFederatedUsers: false },
  { path: '/security', label: 'Security', remote: 'remote_security', forFederatedUsers: false },
  {
    path: '/activity',
    label: 'Devices & activity',
    remote: 'remote_activity',
    forFederatedUsers: 'when-org-data',
  },
];

/** Federated users see a page made for them, and one 'when-org-data' only where the data is the org's. */
function isShownTo(page: PortalPage, { isFederated, accountDataFrom }: PageAudience): boolean {
  if (!isFederated || page.forFederatedUsers === true) return true;
  return page.forFederatedUsers === 'when-org-data' && accountDataFrom === 'org';
}

export function visiblePages(audience: PageAudience): readonly PortalPage[] {
  return PORTAL_PAGES.filter((page) => isShownTo(page, audience));
}

/** The MF request of a remote's page module, e.g. 'remote_profile/ProfilePage'. */
export function pageModuleRequest(remote: RemoteName): string {
  return `${remote}/${REMOTE_PAGES[remote].replace(/^\.\//, '')}`;
}
