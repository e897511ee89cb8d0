import { useMemo } from 'react';
import { createApiClient, type AccessTokenGetter, type RenewSession } from '../api-client.js';
import type { PortalAuth, SignInAgain } from '../auth-context.js';
import { userFromClaims, type IdTokenClaims } from './claims.js';
import { useIsFederated } from './federated.js';

export interface SessionSource {
  /** The ID token's claims. */
  claims: IdTokenClaims;
  getAccessToken: AccessTokenGetter;
  /** Base URL of the account API ('' for the page's origin). */
  apiBaseUrl: string;
  flagBaseUrl: string;
  /** Renews the ID token after the user changed their claims; none: nothing to renew. */
  refreshUser?: () => Promise<void>;
  onSessionEnded?: () => void;
  /** Renews the tokens silently (the provider's session cookie) when the API refuses the access token. */
  renewSession?: RenewSession;
  /** A new sign-in asking for the credentials again (PortalAuth.signInAgain); none where the host has none. */
  signInAgain?: SignInAgain;
  /** Known already (an integrator passed it); left out, the API is asked. */
  isFederated?: boolean;
}

const noRefresh = () => Promise.resolve();

/**
 * The signed-in session every page reads (`AuthProvider`'s value), the same in the shell and in a mounted
 * remote: the user from the claims, the federated flag, and the one API client every call of the session goes
 * through (the federated question included). Undefined until the flag is known.
 */
export function useSignedInSession({
  claims,
  getAccessToken,
  apiBaseUrl,
  flagBaseUrl,
  refreshUser = noRefresh,
  onSessionEnded,
  renewSession,
  signInAgain,
  isFederated: known,
}: SessionSource): PortalAuth | undefined {
  const user = useMemo(() => userFromClaims(claims), [claims]);
  const client = useMemo(
    () =>
      createApiClient({
        baseUrl: apiBaseUrl,
        getAccessToken,
        ...(onSessionEnded ? { onSessionEnded } : {}),
        ...(renewSession ? { renewSession } : {}),
      }),
    [apiBaseUrl, getAccessToken, onSessionEnded, renewSession],
  );
  const isFederated = useIsFederated(client, user.sub, known);
  return useMemo<PortalAuth | undefined>(
    () =>
      isFederated === undefined
        ? undefined
        : {
            user,
            isFederated,
            getAccessToken,
            apiBaseUrl,
            apiClient: client,
            flagBaseUrl,
            refreshUser,
            ...(onSessionEnded ? { onSessionEnded } : {}),
            ...(renewSession ? { renewSession } : {}),
            ...(signInAgain ? { signInAgain } : {}),
          },
    [
      user,
      isFederated,
      getAccessToken,
      apiBaseUrl,
      client,
      flagBaseUrl,
      refreshUser,
      onSessionEnded,
      renewSession,
      signInAgain,
    ],
  );
}
