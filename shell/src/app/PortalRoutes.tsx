import { useCallback, useMemo } from 'react';
import { Navigate, Route, Routes, useNavigate } from 'react-router-dom';
import { LoginCallback, Security } from '@okta/okta-react';
import { toRelativeUrl, type OktaAuth } from '@okta/okta-auth-js';
import { WaitDialog } from 'shared-ui';
import { PageMessage } from '../components/PageMessage.js';
import type { Settings } from 'shared-auth';
import { createOktaAuth } from '../features/auth/oktaConfig.js';
import { RequireAuth } from '../features/auth/components/RequireAuth.js';
import { LoginError } from '../features/auth/components/LoginError.js';
import { PORTAL_PAGES } from '../features/remotes/pages.js';
import { RemotePage } from '../features/remotes/components/RemotePage.js';
import { SignedInPortal } from './SignedInPortal.js';

export function PortalRoutes({ settings }: { settings: Settings }) {
  const navigate = useNavigate();
  const oktaAuth = useMemo(() => createOktaAuth(settings), [settings]);
  const restoreOriginalUri = useCallback(
    async (_auth: OktaAuth, originalUri: string | undefined) => {
      // The sign-in return route shows the profile unless the visitor was headed elsewhere.
      await navigate(toRelativeUrl(originalUri || '/profile', window.location.origin), { replace: true });
    },
    [navigate],
  );

  return (
    <Security oktaAuth={oktaAuth} restoreOriginalUri={restoreOriginalUri}>
      <Routes>
        <Route path="/" element={<Navigate to="/profile" replace />} />
        <Route
          path="/login/callback"
          element={
            <LoginCallback errorComponent={LoginError} loadingElement={<WaitDialog open title="Loading" />} />
          }
        />
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
