import type { OktaAuth } from '@okta/okta-auth-js/core';

/** Logout (spec section 2): clear local storage, then sign out of the identity provider. */
export async function signOut(oktaAuth: OktaAuth): Promise<void> {
  // Keep the tokens in hand: the provider needs the ID token to end its session, and the storage is about to go.
  const { idToken, accessToken, refreshToken } = oktaAuth.tokenManager.getTokensSync();
  window.localStorage.clear();
  await oktaAuth.signOut({ idToken, accessToken, refreshToken });
}
