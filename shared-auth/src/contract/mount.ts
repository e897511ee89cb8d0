/**
 * The framework-agnostic entry every remote exposes as `./mount` (next to its page module in REMOTE_PAGES):
 * an integrator's page loads it through the Module Federation runtime and calls
 * `mount(element, options)`, which renders the remote's page (themed, with its own auth context) into the
 * element and returns the function that removes it again.
 *
 * Types only: nothing here reaches the bundles. The remotes check the options at run time (mount-runtime), and
 * the contract stays free of DOM types so the server can import it too.
 */

/** The exposed module name of the framework-agnostic entry, in every remote. */
export type RemoteMountModule = './mount';

/** The signed-in user's ID-token claims, under the names an integrator's OpenID client already has. */
export interface RemoteMountUserClaims {
  /** The user id: the `:sub` of every account API call. */
  sub: string;
  email: string;
  given_name?: string;
  family_name?: string;
  /** Defaults to given_name and family_name joined. */
  name?: string;
  /** Two-letter country code. */
  country?: string;
}

export interface RemoteMountOptions {
  /** Returns the user's current access token for the account API (a bearer JWT); may be async. */
  getAccessToken: () => string | undefined | Promise<string | undefined>;
  /** The signed-in user's claims. */
  user: RemoteMountUserClaims;
  /** Whether the user signs in through their company (single sign-on). Omitted: asked from the API's isfederated
   * call, and a failed call counts as not federated, as in the portal. */
  isFederated?: boolean;
  /** Origin (and optional path) of the account API, e.g. `https://account.example.com`; '' for the page's own. */
  apiBaseUrl: string;
  /** Where the remote is mounted in the page's address space, for remotes that route inside; default '/'. */
  basePath?: string;
  /** Base URL of the country flag images; default `${apiBaseUrl}/flags/4x3`. */
  flagBaseUrl?: string;
  /** Called after the user changed their claims (profile save), so the page's sign-in can renew its ID token. */
  refreshUser?: () => Promise<void>;
  /**
   * Called when the account API refuses the access token it was given (401 `invalid_token`): the user's sign-in
   * session ended elsewhere (signed out, revoked, or a password or 2-step change in another browser). Sign the
   * user in again (the portal drops its tokens); until then every call of the remote fails.
   */
  onSessionEnded?: () => void;
  /**
   * Renews the user's tokens silently (no visible page: the identity provider's session cookie, e.g. okta-auth-js
   * `token.getWithoutPrompt`) when the account API refuses the access token: a password or 2-step change ends every
   * grant of the account, the caller's too, and keeps only its provider session. Resolve once `getAccessToken`
   * gives the new token (the call is then sent once more); reject when it could not (then `onSessionEnded`).
   * Concurrent refusals share one call; the signal fires at its time bound or when the page goes.
   */
  renewSession?: (options: { signal?: AbortSignal }) => Promise<void>;
  /**
   * Starts a new sign-in that asks for the credentials again (prompt=login, max_age=0) and comes back to
   * `returnTo` (a path of the page). The Security page offers it as "Confirm it's you" where the account API cannot
   * check passwords (Okta mode); without it, that dialog tells the user to sign out and in again by hand.
   */
  signInAgain?: (options: { returnTo: string }) => Promise<void>;
}

/** Removes what `mount` rendered. Calling it twice does nothing; the element can be mounted into again. */
export type RemoteUnmount = () => void;

/** `mount(element, options)`. `TElement` is the DOM's HTMLElement in browser code. */
export type RemoteMount<TElement> = (element: TElement, options: RemoteMountOptions) => RemoteUnmount;
