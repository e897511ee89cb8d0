import { useCallback, useEffect, useRef, useState } from 'react';
import type { RemoteMount, RemoteMountUserClaims } from 'shared-auth';
import { Button, Flex, Layout, Tag, Typography } from 'shared-ui';
import { signOut, type HarnessAuth } from './signIn.js';

export interface HarnessPageProps {
  /** The remote's name, e.g. remote-profile. */
  remote: string;
  mount: RemoteMount<HTMLElement>;
  auth: HarnessAuth;
  apiBaseUrl: string;
  flagBaseUrl: string;
}

function claimsOf(auth: HarnessAuth): RemoteMountUserClaims {
  const claims: Record<string, unknown> = { ...auth.tokenManager.getTokensSync().idToken?.claims };
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined);
  return {
    sub: text(claims.sub) ?? '',
    email: text(claims.email) ?? '',
    given_name: text(claims.given_name),
    family_name: text(claims.family_name),
    name: text(claims.name),
    country: text(claims.country),
  };
}

/**
 * The remote alone: who is signed in, a Sign out button, and the page rendered through the remote's own
 * mount() (the same entry an integrator's page uses), with no shell around it.
 */
export function HarnessPage({ remote, mount, auth, apiBaseUrl, flagBaseUrl }: HarnessPageProps) {
  const [claims, setClaims] = useState(() => claimsOf(auth));
  const [signingOut, setSigningOut] = useState(false);
  const container = useRef<HTMLDivElement>(null);
  // The page is mounted once, for the user who signed in; later renewals only refresh the header.
  const [mountedClaims] = useState(claims);

  useEffect(() => {
    const renewed = (key: string) => key === 'idToken' && setClaims(claimsOf(auth));
    auth.tokenManager.on('renewed', renewed);
    return () => auth.tokenManager.off('renewed', renewed);
  }, [auth]);

  const getAccessToken = useCallback(
    () => auth.tokenManager.getTokensSync().accessToken?.accessToken,
    [auth],
  );
  const refreshUser = useCallback(async () => {
    await auth.tokenManager.renew('idToken');
  }, [auth]);

  useEffect(() => {
    if (!container.current) return;
    return mount(container.current, {
      getAccessToken,
      user: mountedClaims,
      apiBaseUrl,
      flagBaseUrl,
      refreshUser,
    });
  }, [mount, getAccessToken, mountedClaims, apiBaseUrl, flagBaseUrl, refreshUser]);

  const name =
    claims.name || [claims.given_name, claims.family_name].filter(Boolean).join(' ') || claims.email;
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
              Signed in as <strong>{name}</strong>
            </Typography.Text>
            <Button
              loading={signingOut}
              onClick={() => {
                setSigningOut(true);
                signOut(auth).catch((error: unknown) => {
                  console.error('Sign out failed:', error);
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
        <div ref={container} />
      </Layout.Content>
    </Layout>
  );
}
