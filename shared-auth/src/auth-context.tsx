import { createContext, useContext, type ReactNode } from 'react';
import type { AccessTokenGetter, ApiClient, RenewSession } from './api-client.js';

/** The signed-in user, from the ID token's claims (spec section 3). */
export interface PortalUser {
  sub: string;
  email: string;
  givenName: string;
  familyName: string;
  name: string;
  /** Two-letter country code, or '' when the directory has none. */
  country: string;
}

export interface PortalAuth {
  user: PortalUser;
  /** Known once the isfederated call answered; federated users may not edit anything. */
  isFederated: boolean;
  getAccessToken: AccessTokenGetter;
  /** Base URL of the account API ('' for the page's origin). */
  apiBaseUrl: string;
  /**
   * The session's one API client (on `apiBaseUrl`, `getAccessToken`, `renewSession` and `onSessionEnded`): every
   * call of the page goes through it (`useApiClient()`).
   */
  apiClient: ApiClient;
  /** Base URL of the flag images. */
  flagBaseUrl: string;
  /** Fetches fresh claims from the identity provider after the user changed them. */
  refreshUser: () => Promise<void>;
  /** The API refused the access token (the session ended elsewhere): the page signs the visitor in again. */
  onSessionEnded?: () => void;
  /**
   * Renews the tokens silently with the identity provider's session (no visible page) when the API refuses the
   * access token: the API client then sends the call once more, and calls onSessionEnded only if this fails.
   */
  renewSession?: RenewSession;
  /**
   * A new sign-in at the identity provider, asking for the credentials again even when its session is still
   * signed in (prompt=login, max_age=0), then back to `returnTo` (a path of this page's origin). The fresh
   * sign-in is the proof of "Confirm it's you" where the server cannot check passwords (Okta mode). Leaves the
   * page (a redirect); it rejects when the redirect could not start. Absent where the page's host does not
   * sign in itself (a mount() without it).
   */
  signInAgain?: SignInAgain;
}

/** Starts a new sign-in that asks for the credentials again, and returns to `returnTo` afterwards. */
export type SignInAgain = (options: { returnTo: string }) => Promise<void>;

const AuthContext = createContext<PortalAuth | null>(null);
AuthContext.displayName = 'PortalAuth';

export function AuthProvider({ value, children }: { value: PortalAuth; children: ReactNode }) {
  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}

/** The auth of the page. A remote rendered outside the shell or the mount() entry has none: say so plainly. */
export function useAuth(): PortalAuth {
  const auth = useContext(AuthContext);
  if (!auth) {
    throw new Error(
      'No signed-in user: render this inside the portal shell, or mount it with mount() and its auth options.',
    );
  }
  return auth;
}

/** The API client of the signed-in session (the one `useSignedInSession` built). */
export function useApiClient(): ApiClient {
  return useAuth().apiClient;
}
