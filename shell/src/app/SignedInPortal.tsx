import { useCallback, useMemo } from 'react';
import { Outlet } from 'shared-router';
import { useOktaAuth } from '@okta/okta-react';
import { WaitDialog } from 'shared-ui';
import { AuthProvider, createApiClient, userFromClaims, type PortalAuth, type Settings } from 'shared-auth';
import { useIsFederated } from '../features/federated/hooks/useIsFederated.js';
import { AppLayout } from '../features/layout/components/AppLayout.js';
import { signOut } from '../features/auth/signOut.js';
import { renewUserClaims } from '../features/auth/renewUserClaims.js';

/** The signed-in portal: the federated gate, the auth every remote reads, and the layout. */
export function SignedInPortal({ settings }: { settings: Settings }) {
  const { oktaAuth, authState } = useOktaAuth();
  const claims = authState?.idToken?.claims;
  const user = useMemo(() => userFromClaims(claims ?? {}), [claims]);
  const getAccessToken = useCallback(() => oktaAuth.getAccessToken(), [oktaAuth]);
  // The API refused the token: the session ended elsewhere (signed out, revoked, a password or 2-step change in
  // another browser). Dropping the tokens sends the visitor to sign-in (RequireAuth) and back to this page.
  const sessionEnded = useCallback(() => oktaAuth.tokenManager.clear(), [oktaAuth]);
  const client = useMemo(
    () => createApiClient({ baseUrl: '', getAccessToken, onSessionEnded: sessionEnded }),
    [getAccessToken, sessionEnded],
  );
  const isFederated = useIsFederated(client, user.sub);

  const refreshUser = useCallback(async () => {
    // Fresh ID-token claims carry what the user just saved, so a reload shows it too.
    await renewUserClaims(oktaAuth);
  }, [oktaAuth]);

  const auth = useMemo<PortalAuth | undefined>(
    () =>
      isFederated === undefined
        ? undefined
        : {
            user,
            isFederated,
            getAccessToken,
            apiBaseUrl: '',
            flagBaseUrl: settings.FlagBaseUrl,
            refreshUser,
            onSessionEnded: sessionEnded,
          },
    [user, isFederated, getAccessToken, settings.FlagBaseUrl, refreshUser, sessionEnded],
  );

  if (!auth) return <WaitDialog open title="Loading" />;
  return (
    <AuthProvider value={auth}>
      <AppLayout
        settings={settings}
        userName={user.name}
        isFederated={auth.isFederated}
        onLogout={() => void signOut(oktaAuth)}
      >
        <Outlet />
      </AppLayout>
    </AuthProvider>
  );
}
