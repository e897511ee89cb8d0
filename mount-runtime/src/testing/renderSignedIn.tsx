import { render } from '@testing-library/react';
import type { ReactElement } from 'react';
import { AuthProvider, createApiClient, type PortalAuth } from 'shared-auth';
import { PortalThemeProvider } from 'shared-ui';

/**
 * Renders a remote's page as the portal shows it (the theme, and the signed-in user through AuthProvider) for
 * Alice, a non-federated user; `overrides` changes what a test varies. Returns the auth the page got.
 */
export function renderSignedIn(page: ReactElement, overrides: Partial<PortalAuth> = {}): PortalAuth {
  const getAccessToken = overrides.getAccessToken ?? (() => 'token');
  const apiBaseUrl = overrides.apiBaseUrl ?? '';
  const auth: PortalAuth = {
    user: {
      sub: '00u1alice',
      email: 'alice@example.com',
      givenName: 'Alice',
      familyName: 'Liddell',
      name: 'Alice Liddell',
      country: 'GB',
    },
    isFederated: false,
    getAccessToken,
    apiBaseUrl,
    apiClient: createApiClient({ baseUrl: apiBaseUrl, getAccessToken }),
    flagBaseUrl: '/flags/4x3',
    refreshUser: jest.fn(() => Promise.resolve()),
    ...overrides,
  };
  render(
    <PortalThemeProvider>
      <AuthProvider value={auth}>{page}</AuthProvider>
    </PortalThemeProvider>,
  );
  return auth;
}
