import { useCallback, useMemo, useState } from 'react';
import { Outlet } from 'shared-router';
import { useOktaAuth } from '@okta/okta-react';
import { App, WaitDialog } from 'shared-ui';
import {
  accessTokenGetterOf,
  AuthProvider,
  createSignInAgain,
  createSignOut,
  installSilentRenewal,
  renewUserClaims,
  useSignedInSession,
  type Settings,
} from 'shared-auth';
import type { PortalPage } from '../config/pages.js';
import { AppLayout } from '../features/layout/components/AppLayout.js';
import { loadedRemotes, preloadPageModule } from '../features/remotes/api/remotesConfig.js';
import { AboutDialog } from '../features/remotes/components/AboutDialog.js';
import { useRemotesForHolder } from '../features/remotes/hooks/useRemotes.js';

// Start loading a page's remote as soon as the user shows interest in it.
const preloadPage = (page: PortalPage) => preloadPageModule(page.remote);
const NO_CLAIMS = {};

/** The signed-in portal: the federated gate, the session every remote reads, and the layout. */
export function SignedInPortal({ settings }: { settings: Settings }) {
  const { oktaAuth, authState } = useOktaAuth();
  const { notification } = App.useApp();
  const claims = authState?.idToken?.claims ?? NO_CLAIMS;
  // A page that started without the holder's token (the sign-in return) gets their remotes (canaries) now.
  useRemotesForHolder(authState?.accessToken?.accessToken);
  const [aboutOpen, setAboutOpen] = useState(false);
  const signedIn = useMemo(
    () => ({
      getAccessToken: accessTokenGetterOf(oktaAuth),
      // Fresh ID-token claims carry what the user just saved, so a reload shows it too.
      refreshUser: () => renewUserClaims(oktaAuth),
      // The API refused the token, or the provider the refresh token: a password or 2-step change ended every grant
      // of the account, this page's too. The provider's session cookie renews them silently (a hidden iframe), and
      // the call goes once more; a copied refresh token has no cookie and stays dead.
      renewSession: installSilentRenewal(oktaAuth),
      // The silent renewal failed too: the session ended (signed out, revoked, changed in another browser).
      // Dropping the tokens sends the visitor to sign-in (RequireAuth) and back to this page.
      onSessionEnded: () => oktaAuth.tokenManager.clear(),
      signOut: createSignOut(oktaAuth),
      // "Confirm it's you" by a new sign-in (Okta mode): the sign-in return route restores the page afterwards.
      signInAgain: createSignInAgain(oktaAuth),
    }),
    [oktaAuth],
  );
  const { signOut, ...source } = signedIn;
  const session = useSignedInSession({
    ...source,
    claims,
    apiBaseUrl: '',
    flagBaseUrl: settings.FlagBaseUrl,
  });

  const logout = useCallback(() => {
    signOut().catch((error: unknown) => {
      console.error('Logout failed:', error);
      notification.error({
        key: 'logout',
        title: error instanceof Error ? error.message : String(error),
        duration: false,
      });
    });
  }, [signOut, notification]);

  if (!session) return <WaitDialog open title="Loading" />;
  return (
    <AuthProvider value={session}>
      <AppLayout
        settings={settings}
        userName={session.user.name}
        isFederated={session.isFederated}
        onLogout={logout}
        onAbout={() => setAboutOpen(true)}
        onPageInterest={preloadPage}
      >
        <Outlet />
      </AppLayout>
      <AboutDialog
        open={aboutOpen}
        onClose={() => setAboutOpen(false)}
        remotes={aboutOpen ? loadedRemotes() : []}
      />
    </AuthProvider>
  );
}
