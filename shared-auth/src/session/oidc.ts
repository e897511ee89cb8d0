import { issuerOf, type Settings } from '../contract/index.js';

/** The scopes the portal asks for (spec section 3); the embedded provider and Okta issue refresh tokens with them. */
export const PORTAL_SCOPES = ['openid', 'profile', 'email', 'phone'];

/** Where the provider sends the browser back after sign-in, on the page's own origin. */
export const CALLBACK_PATH = '/login/callback';

/** The OpenID client options every sign-in of the portal uses; an okta-auth-js `OktaAuthOptions` as it is. */
export interface OidcOptions {
  issuer: string;
  clientId: string;
  redirectUri: string;
  postLogoutRedirectUri: string;
  scopes: string[];
  pkce: true;
  cookies: { secure: boolean };
}

/**
 * Redirect sign-in with PKCE against the settings' provider, coming back to `origin` (the shell's, or a remote's
 * own for its standalone harness: the server trusts those as redirect targets).
 */
export function oidcOptions(settings: Pick<Settings, 'Domain' | 'ClientId'>, origin: string): OidcOptions {
  return {
    issuer: issuerOf(settings),
    clientId: settings.ClientId,
    redirectUri: `${origin}${CALLBACK_PATH}`,
    postLogoutRedirectUri: `${origin}/`,
    scopes: [...PORTAL_SCOPES],
    pkce: true,
    // Secure cookies need https; on plain-http localhost the browser would drop them.
    cookies: { secure: origin.startsWith('https:') },
  };
}
