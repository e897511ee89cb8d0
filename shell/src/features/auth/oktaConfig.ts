import { OktaAuth, type OktaAuthOptions } from '@okta/okta-auth-js/core';
import { issuerOf, type Settings } from 'shared-auth';

/** Scopes the spec asks for (section 3); the embedded provider and Okta both issue refresh tokens with them. */
export const PORTAL_SCOPES = ['openid', 'profile', 'email', 'phone'];

export function oktaOptions(settings: Settings, origin: string): OktaAuthOptions {
  return {
    issuer: issuerOf(settings),
    clientId: settings.ClientId,
    redirectUri: `${origin}/login/callback`,
    postLogoutRedirectUri: `${origin}/`,
    scopes: PORTAL_SCOPES,
    pkce: true,
    // Secure cookies need https; on plain-http localhost the browser would drop them.
    cookies: { secure: origin.startsWith('https:') },
  };
}

export function createOktaAuth(settings: Settings, origin = window.location.origin): OktaAuth {
  return new OktaAuth(oktaOptions(settings, origin));
}
