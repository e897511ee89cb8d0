import { useEffect, useState } from 'react';
import { Outlet } from 'shared-router';
import { useOktaAuth } from '@okta/okta-react';
import { toRelativeUrl } from '@okta/okta-auth-js/core';
import { WaitDialog } from 'shared-ui';
import { LoginError } from './LoginError.js';

/** Secure routes: a visitor without tokens goes to sign-in and comes back to the address they asked for. */
export function RequireAuth() {
  const { oktaAuth, authState } = useOktaAuth();
  const signedIn = authState?.isAuthenticated === true;
  // Sign-in could not even start (the identity provider is unreachable): say so instead of Loading forever.
  const [error, setError] = useState<Error>();

  useEffect(() => {
    if (authState && !authState.isAuthenticated) {
      oktaAuth.setOriginalUri(toRelativeUrl(window.location.href, window.location.origin));
      oktaAuth.signInWithRedirect().catch((reason: unknown) => {
        console.error('Sign-in could not start:', reason);
        setError(reason instanceof Error ? reason : new Error(String(reason)));
      });
    }
  }, [authState, oktaAuth]);

  if (signedIn) return <Outlet />;
  return error ? <LoginError error={error} /> : <WaitDialog open title="Loading" />;
}
