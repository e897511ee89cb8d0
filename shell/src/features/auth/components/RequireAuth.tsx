import { useEffect } from 'react';
import { Outlet } from 'shared-router';
import { useOktaAuth } from '@okta/okta-react';
import { toRelativeUrl } from '@okta/okta-auth-js/core';
import { WaitDialog } from 'shared-ui';

/** Secure routes: a visitor without tokens goes to sign-in and comes back to the address they asked for. */
export function RequireAuth() {
  const { oktaAuth, authState } = useOktaAuth();
  const signedIn = authState?.isAuthenticated === true;

  useEffect(() => {
    if (authState && !authState.isAuthenticated) {
      oktaAuth.setOriginalUri(toRelativeUrl(window.location.href, window.location.origin));
      void oktaAuth.signInWithRedirect();
    }
  }, [authState, oktaAuth]);

  return signedIn ? <Outlet /> : <WaitDialog open title="Loading" />;
}
