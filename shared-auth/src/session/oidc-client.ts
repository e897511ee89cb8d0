import type { SignInAgain } from '../auth-context.js';
import type { AccessTokenGetter } from '../api-client.js';

// The parts of the portal's OpenID client (okta-auth-js's OktaAuth) the session uses, by shape: shared-auth does
// not bundle the SDK, and tests pass fakes. `T` is the client's own token set.

interface TokenSource<T> {
  tokenManager: { getTokensSync(): T };
}

/** The current access token, from the client's token storage. */
export function accessTokenGetterOf(
  client: TokenSource<{ accessToken?: { accessToken: string } }>,
): AccessTokenGetter {
  return () => client.tokenManager.getTokensSync().accessToken?.accessToken;
}

/**
 * Fresh tokens, so the ID token's claims carry what the user just saved (a reload then shows it). Unlike
 * tokenManager.renew, a failed renewal (the identity provider unreachable) leaves the stored tokens alone:
 * tokenManager.renew removes the ID token then, which signs the user out in the middle of a successful save and
 * sends them to a sign-in page that cannot load.
 */
export async function renewUserClaims<T>(client: {
  token: { renewTokens(): Promise<T> };
  tokenManager: { setTokens(tokens: T): void };
}): Promise<void> {
  const tokens = await client.token.renewTokens();
  client.tokenManager.setTokens(tokens);
}

/** What the user is told when Logout could not end the provider's session. */
export const SIGN_OUT_FAILED = 'Logout failed: the sign-in service could not be reached. Please try again.';

/** Logout did not reach the identity provider: the message says so, for the page to show. */
export class SignOutError extends Error {
  override readonly name = 'SignOutError';
}

export interface SignOutClient<T> extends TokenSource<T> {
  /** Revokes the tokens and ends the provider's session (a redirect to its end-session endpoint). */
  signOut(tokens: T): Promise<unknown>;
}

/**
 * Logout (spec section 2): clear local storage, then sign out of the identity provider. Rejects with a
 * SignOutError when the provider cannot be reached. The tokens are taken before the storage goes (the provider
 * needs the ID token to end its session) and kept after a failure, so another attempt still ends that session
 * instead of leaving the provider signed in.
 */
export function createSignOut<T>(
  client: SignOutClient<T>,
  storage: Pick<Storage, 'clear'> = window.localStorage,
): () => Promise<void> {
  let held: T | undefined;
  return async () => {
    const tokens = held ?? client.tokenManager.getTokensSync();
    held = tokens;
    storage.clear();
    try {
      await client.signOut(tokens);
    } catch (cause) {
      throw new SignOutError(SIGN_OUT_FAILED, { cause });
    }
  };
}

/** The part of the OpenID client a new sign-in needs (okta-auth-js's signInWithRedirect). */
export interface SignInAgainClient {
  signInWithRedirect(options: { originalUri: string; prompt: 'login'; maxAge: 0 }): Promise<unknown>;
}

/**
 * PortalAuth.signInAgain over the portal's OpenID client: a new authorization request that makes the provider ask
 * for the credentials again even while its session is signed in (prompt=login, max_age=0), so the new tokens'
 * auth_time is now; the sign-in return route then restores `returnTo`. A redirect that cannot start rejects.
 */
export function createSignInAgain(client: SignInAgainClient): SignInAgain {
  return async ({ returnTo }) => {
    await client.signInWithRedirect({ originalUri: returnTo, prompt: 'login', maxAge: 0 });
  };
}
