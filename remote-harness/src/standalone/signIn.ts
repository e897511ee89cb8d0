import { OktaAuth } from '@okta/okta-auth-js/core';
import { CALLBACK_PATH, oidcOptions, type Settings } from 'shared-auth';

/**
 * The harness signs in exactly as the shell does (same provider, same client, redirect with PKCE), from its own
 * origin: the server trusts the remotes' origins as redirect targets (TRUSTED_ORIGINS).
 */
export function createHarnessAuth(settings: Settings, origin: string): OktaAuth {
  return new OktaAuth({
    ...oidcOptions(settings, origin),
    // Back from the provider: put the original address in place without reloading the page.
    restoreOriginalUri: async (_auth, originalUri) => {
      const url = new URL(originalUri || '/', origin);
      window.history.replaceState(null, '', `${url.pathname}${url.search}${url.hash}`);
    },
  });
}

/** The part of OktaAuth the harness uses (a fake in tests). */
export type HarnessAuth = Pick<
  OktaAuth,
  | 'isAuthenticated'
  | 'handleLoginRedirect'
  | 'signInWithRedirect'
  | 'start'
  | 'tokenManager'
  | 'token'
  | 'signOut'
>;

export type SignInResult = { status: 'signed-in' } | { status: 'redirecting' };

/** The return from the provider is completed; a visitor without tokens is sent to sign in and comes back here. */
export async function ensureSignedIn(auth: HarnessAuth, location: Location): Promise<SignInResult> {
  if (location.pathname === CALLBACK_PATH) {
    await auth.handleLoginRedirect();
  } else if (!(await auth.isAuthenticated())) {
    await auth.signInWithRedirect({ originalUri: `${location.pathname}${location.search}${location.hash}` });
    return { status: 'redirecting' };
  }
  // Renews tokens before they expire (refresh tokens), as okta-react does for the shell.
  await auth.start();
  return { status: 'signed-in' };
}
