import { useEffect, useRef, useState } from 'react';
import { useOktaAuth } from '@okta/okta-react';
import { WaitDialog } from 'shared-ui';
import { LoginError } from './LoginError.js';

/**
 * The sign-in return route. okta-react's own LoginCallback also checks for Okta's IDX (embedded sign-in widget)
 * flows, which pulls the whole IDX client into the first page; the portal only uses the redirect flow, which the
 * core SDK's handleLoginRedirect completes (and then restores the original address).
 */
export function LoginCallbackRoute() {
  const { oktaAuth, authState } = useOktaAuth();
  const [error, setError] = useState<Error>();
  const handled = useRef(false);

  useEffect(() => {
    if (handled.current) return;
    handled.current = true;
    oktaAuth.handleLoginRedirect().catch((reason: unknown) => {
      setError(reason instanceof Error ? reason : new Error(String(reason)));
    });
  }, [oktaAuth]);

  const shown = error ?? authState?.error;
  return shown ? <LoginError error={shown} /> : <WaitDialog open title="Loading" />;
}
