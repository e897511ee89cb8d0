import type { OktaAuth } from '@okta/okta-auth-js/core';

/**
 * Fresh tokens, so the ID token's claims carry what the user just saved (a reload then shows it). Unlike
 * tokenManager.renew, a failed renewal (the identity provider unreachable) leaves the stored tokens alone:
 * tokenManager.renew removes the ID token then, which signs the user out in the middle of a successful save and
 * sends them to a sign-in page that cannot load.
 */
export async function renewUserClaims(oktaAuth: OktaAuth): Promise<void> {
  const tokens = await oktaAuth.token.renewTokens();
  oktaAuth.tokenManager.setTokens(tokens);
}
