import { useEffect, useMemo, useRef, useState } from 'react';
import {
  accessTokenGetterOf,
  createSignInAgain,
  createSignOut,
  installSilentRenewal,
  mountClaimsOf,
  renewUserClaims,
  userFromClaims,
  type RemoteMount,
} from 'shared-auth';
import { Alert, Button, Flex, Layout, Tag, Typography } from 'shared-ui';
import type { HarnessAuth } from './signIn.js';

export interface HarnessPageProps {
  /** The remote's name, e.g. remote-profile. */
  remote: string;
  mount: RemoteMount<HTMLElement>;
  auth: HarnessAuth;
  apiBaseUrl: string;
  flagBaseUrl: string;
}

const claimsOf = (auth: HarnessAuth) => ({ ...auth.tokenManager.getTokensSync().idToken?.claims });

/**
 * The remote alone: who is signed in, a Sign out button, and the page rendered through the remote's own
 * mount() (the same entry an integrator's page uses), with no shell around it.
 */
export function HarnessPage({ remote, mount, auth, apiBaseUrl, flagBaseUrl }: HarnessPageProps) {
  const [claims, setClaims] = useState(() => claimsOf(auth));
  const [signingOut, setSigningOut] = useState(false);
  const [signOutError, setSignOutError] = useState<string>();
  const container = useRef<HTMLDivElement>(null);
  // The page is mounted once, for the user who signed in; later renewals only refresh the header.
  const [mountedClaims] = useState(() => mountClaimsOf(claims));

  useEffect(() => {
    const renewed = (key: string) => key === 'idToken' && setClaims(claimsOf(auth));
    auth.tokenManager.on('renewed', renewed);
    return () => auth.tokenManager.off('renewed', renewed);
  }, [auth]);

  const { getAccessToken, refreshUser, renewSession, onSessionEnded, signInAgain, signOut } = useMemo(
    () => ({
      getAccessToken: accessTokenGetterOf(auth),
      refreshUser: () => renewUserClaims(auth),
      // A password or 2-step change ended every grant, this page's too: renew with the provider's session cookie,
      // as the shell does (its refresh falls back to the same on invalid_grant).
      renewSession: installSilentRenewal(auth),
      // The silent renewal failed: sign in again, back to this address.
      onSessionEnded: () => {
        auth.tokenManager.clear();
        const { pathname, search, hash } = window.location;
        auth.signInWithRedirect({ originalUri: `${pathname}${search}${hash}` }).catch((error: unknown) => {
          console.error('Sign-in could not start:', error);
        });
      },
      // "Confirm it's you" by a new sign-in (Okta mode): back to this address, put in place by restoreOriginalUri.
      signInAgain: createSignInAgain(auth),
      signOut: createSignOut(auth),
    }),
    [auth],
  );

  useEffect(() => {
    if (!container.current) return;
    return mount(container.current, {
      getAccessToken,
      user: mountedClaims,
      apiBaseUrl,
      flagBaseUrl,
      refreshUser,
      renewSession,
      onSessionEnded,
      signInAgain,
    });
  }, [
    mount,
    getAccessToken,
    mountedClaims,
    apiBaseUrl,
    flagBaseUrl,
    refreshUser,
    renewSession,
    onSessionEnded,
    signInAgain,
  ]);

  const user = userFromClaims(claims);
  return (
    <Layout style={{ minHeight: '100vh' }}>
      <Layout.Header style={{ background: '#fff', borderBottom: '1px solid #f0f0f0', paddingInline: 24 }}>
        <Flex align="center" justify="space-between" style={{ height: '100%' }} gap={16}>
          <Flex align="center" gap={8}>
            <Typography.Text strong>{remote}</Typography.Text>
            <Tag>standalone</Tag>
          </Flex>
          <Flex align="center" gap={12}>
            <Typography.Text>
              Signed in as <strong>{user.name || user.email}</strong>
            </Typography.Text>
            <Button
              loading={signingOut}
              onClick={() => {
                setSigningOut(true);
                setSignOutError(undefined);
                signOut().catch((error: unknown) => {
                  console.error('Sign out failed:', error);
                  setSignOutError(error instanceof Error ? error.message : String(error));
                  setSigningOut(false);
                });
              }}
            >
              Sign out
            </Button>
          </Flex>
        </Flex>
      </Layout.Header>
      <Layout.Content style={{ padding: 24 }}>
        {signOutError ? (
          <Alert type="error" showIcon title={signOutError} style={{ marginBottom: 24 }} />
        ) : null}
        <div ref={container} />
      </Layout.Content>
    </Layout>
  );
}
