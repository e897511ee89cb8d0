import { REMOTE_PAGES, type RemoteName } from 'shared-auth';

export interface PortalPage {
  path: string;
  label: string;
  remote: RemoteName;
  /**
   * Federated users may not change their password or security settings (spec section 6), and the server refuses
   * them the Devices & activity calls (their sessions and events are their identity provider's).
   */
  forFederatedUsers: boolean;
}

/** The portal's pages. Only the shell knows that remotes exist; each page is one remote's exposed module. */
export const PORTAL_PAGES: readonly PortalPage[] = [
  { path: '/profile', label: 'My Profile', remote: 'remote_profile', forFederatedUsers: true },
  { path: '/password', label: 'Password', remote: 'remote_password', forFederatedUsers: false },
  { path: '/security', label: 'Security', remote: 'remote_security', forFederatedUsers: false },
  { path: '/activity', label: 'Devices & activity', remote: 'remote_activity', forFederatedUsers: false },
];

export function visiblePages(isFederated: boolean): readonly PortalPage[] {
  return PORTAL_PAGES.filter((page) => page.forFederatedUsers || !isFederated);
}

/** The MF request of a remote's page module, e.g. 'remote_profile/ProfilePage'. */
export function pageModuleRequest(remote: RemoteName): string {
  return `${remote}/${REMOTE_PAGES[remote].replace(/^\.\//, '')}`;
}
