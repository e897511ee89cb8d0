// The whole integration, in plain JavaScript: sign in, load the remote with the Module Federation runtime, mount.
// The same steps as examples/embed-security/embed.js, for the Devices & activity remote, on this site's /activity/.
import { createInstance } from '@module-federation/runtime';

/** { apiBaseUrl, remoteEntry }: where the account API and the Devices & activity remote live. */
const config = JSON.parse(document.getElementById('embed-config').textContent);
const status = document.getElementById('status');
const signedInAs = document.getElementById('signed-in-as');
const signOutButton = document.getElementById('sign-out');

function say(text) {
  status.textContent = text;
  status.hidden = !text;
}

/** The portal's public settings: which identity provider and client to sign in with. */
async function getSettings() {
  const response = await fetch(`${config.apiBaseUrl}/api/clientConfiguration/getSettings`, {
    headers: { Accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`The settings call answered ${response.status}`);
  // The answer is JSON text that holds JSON.
  const body = await response.json();
  return typeof body === 'string' ? JSON.parse(body) : body;
}

/**
 * Redirect sign-in with PKCE against the portal's provider; this page's origin must be a trusted origin. The
 * provider returns to the origin's one sign-in address, /login/callback, which is the site's other page: it
 * finishes the sign-in (the tokens are kept per origin) and sends the browser back here.
 */
async function signIn(settings) {
  const origin = window.location.origin;
  const oktaAuth = new window.OktaAuth.OktaAuth({
    issuer: `${settings.Domain.replace(/\/+$/, '')}/oauth2/default`,
    clientId: settings.ClientId,
    redirectUri: `${origin}/login/callback`,
    postLogoutRedirectUri: `${origin}/`,
    scopes: ['openid', 'profile', 'email', 'phone'],
    pkce: true,
  });
  if (!(await oktaAuth.isAuthenticated())) {
    await oktaAuth.signInWithRedirect({ originalUri: window.location.pathname });
    return undefined;
  }
  // Keeps the tokens fresh (refresh tokens) for as long as the page is open.
  await oktaAuth.start();
  return oktaAuth;
}

async function main() {
  const oktaAuth = await signIn(await getSettings());
  if (!oktaAuth) return; // on the way to the sign-in page
  const { claims } = oktaAuth.tokenManager.getTokensSync().idToken;
  signedInAs.textContent = `Signed in as ${claims.name ?? claims.email}`;

  // The remote is a Module Federation container; this page shares nothing with it, so it brings its own React
  // and antd. Only its remoteEntry.js URL is needed.
  const federation = createInstance({
    name: 'example_embed_activity',
    remotes: [{ name: 'remote_activity', entry: config.remoteEntry }],
  });
  const { mount } = await federation.loadRemote('remote_activity/mount');

  const unmount = mount(document.getElementById('activity'), {
    getAccessToken: () => oktaAuth.getAccessToken(),
    user: claims, // sub, email, given_name, family_name, name, country: the ID token's claims
    apiBaseUrl: config.apiBaseUrl,
    // isFederated is left out: the remote asks the API.
    // A 2-step change in another tab ends every grant of the account, this page's too, and keeps its provider
    // session: renew silently with the session cookie (a hidden iframe); the remote then sends its call once more.
    renewSession: async () => {
      const { tokens } = await oktaAuth.token.getWithoutPrompt({ timeout: 10_000 });
      oktaAuth.tokenManager.setTokens(tokens);
    },
    // "Sign out of all other devices" keeps this session; "This wasn't me" and a sign-out everywhere end it too,
    // and so does a failed renewal: sign in again, back to this page. No signInAgain: it would return to the
    // portal's Password page ("This wasn't me" leads there), which this site does not have.
    onSessionEnded: () => {
      unmount();
      oktaAuth.tokenManager.clear();
      void oktaAuth.signInWithRedirect({ originalUri: window.location.pathname });
    },
  });
  say('');

  signOutButton.hidden = false;
  signOutButton.addEventListener('click', async () => {
    signOutButton.disabled = true;
    unmount();
    const { idToken, accessToken, refreshToken } = oktaAuth.tokenManager.getTokensSync();
    // As the portal does: the remote keeps its step-up progress in local storage.
    window.localStorage.clear();
    await oktaAuth.signOut({ idToken, accessToken, refreshToken });
  });
}

main().catch((error) => {
  console.error(error);
  say(
    `The Devices & activity page could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
  );
});
