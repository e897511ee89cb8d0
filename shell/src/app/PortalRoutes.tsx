import { useCallback, useMemo } from 'react';
import { Navigate, Route, Routes, useNavigate } from 'shared-router';
import { Security } from '@okta/okta-react';
import { OktaAuth, toRelativeUrl } from '@okta/okta-auth-js/core';
import type { OktaAuth as FullOktaAuth } from '@okta/okta-auth-js';
import { PageMessage } from '../components/PageMessage.js';
import { installSilentRenewal, oidcOptions, type Settings } from 'shared-auth';
import { RequireAuth } from '../features/auth/components/RequireAuth.js';
import { LoginCallbackRoute } from '../features/auth/components/LoginCallbackRoute.js';
import { PORTAL_PAGES } from '../config/pages.js';
import { RemotePage } from '../features/remotes/components/RemotePage.js';
import { SignedInPortal } from './SignedInPortal.js';

export function PortalRoutes({ settings }: { settings: Settings }) {
  const navigate = useNavigate();
  // okta-react's types name the full SDK; it only calls the core API (OAuth, tokens, auth state) that this is.
  const oktaAuth = useMemo(() => {
    const auth = new OktaAuth(oidcOptions(settings, window.location.origin)) as unknown as FullOktaAuth;
    // From the start: a refresh token refused at load (invalid_grant) renews with the session cookie too.
    installSilentRenewal(auth);
    return auth;
  }, [settings]);
  const restoreOriginalUri = useCallback(
    async (_auth: FullOktaAuth, originalUri: string | undefined) => {
      // The sign-in return route shows the profile unless the visitor was headed elsewhere.
      await navigate(toRelativeUrl(originalUri || '/profile', window.location.origin), { replace: true });
    },
    [navigate],
  );

  return (
    <Security oktaAuth={oktaAuth} restoreOriginalUri={restoreOriginalUri}>
      <Routes>
        <Route path="/" element={<Navigate to="/profile" replace />} />
        <Route path="/login/callback" element={<LoginCallbackRoute />} />
        <Route element={<RequireAuth />}>
          <Route element={<SignedInPortal settings={settings} />}>
            {PORTAL_PAGES.map((page) => (
              <Route key={page.path} path={page.path} element={<RemotePage key={page.path} page={page} />} />
            ))}
            <Route path="*" element={<PageMessage status="404" title="Page not found" />} />
          </Route>
        </Route>
      </Routes>
    </Security>
  );
}
