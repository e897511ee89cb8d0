// Signing in over plain HTTP, as the portal's browser code does it: authorization code + PKCE against the embedded
// provider (authorize → sign-in page → form POST → redirect to the client with a code → token exchange). The same
// steps as the server tests' signIn/exchangeCode helpers (server/test/helpers.ts), with fetch instead of inject.
import { createHash, randomBytes } from 'node:crypto';

const CLIENT_ID = 'account-portal';
const SCOPES = 'openid profile email phone';

/** Every cookie goes back on every request (paths ignored): enough for the provider's own pages. */
class CookieJar {
  cookies = new Map();

  store(response) {
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired = attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

function hiddenFields(html) {
  const unescape = (value) =>
    value
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  return Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].map((match) => [
      unescape(match[1]),
      unescape(match[2]),
    ]),
  );
}

/** Requests with the jar's cookies and follows the provider's redirects; stops at the client's callback. */
async function follow(jar, url, init, callback) {
  let response = await fetch(url, {
    ...init,
    redirect: 'manual',
    headers: { ...init?.headers, cookie: jar.header() },
  });
  for (let hops = 0; hops < 10; hops += 1) {
    jar.store(response);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) return { response, url };
    url = new URL(location, url).href;
    if (url.startsWith(callback)) return { response, url };
    await response.arrayBuffer();
    response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
  }
  throw new Error('too many redirects');
}

/**
 * Signs `account` ({ email, password }) in on the provider at `origin` (the instance's PUBLIC_URL) and returns
 * `{ accessToken, sub, renew() }`. The account must have no active second factor.
 */
export async function signInOverHttp(origin, account) {
  const jar = new CookieJar();
  const redirectUri = `${origin}/login/callback`;
  const { url: authorize, verifier } = authorizeUrl(origin);

  const page = await follow(jar, authorize, {}, redirectUri);
  const html = await page.response.text();
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, '&');
  if (page.response.status !== 200 || !action)
    throw new Error(`expected the sign-in page, got ${page.response.status}: ${html.slice(0, 300)}`);
  const done = await follow(
    jar,
    new URL(action, page.url).href,
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...hiddenFields(html), ...account }).toString(),
    },
    redirectUri,
  );
  const code = done.url.startsWith(redirectUri) ? new URL(done.url).searchParams.get('code') : null;
  if (!code) {
    const body = await done.response.text();
    throw new Error(`sign-in did not come back with a code: ${done.response.status} ${body.slice(0, 300)}`);
  }

  const { accessToken, idToken } = await exchangeCode(origin, code, verifier);
  const { sub } = JSON.parse(Buffer.from(idToken.split('.')[1], 'base64url').toString('utf8'));
  const session = {
    accessToken,
    sub,
    /**
     * A password or 2-step change ends every grant of the account, this one's too: renew as the page does, with
     * the provider's session cookie (prompt=none, then the code exchange).
     */
    async renew() {
      const renewal = authorizeUrl(origin, { prompt: 'none' });
      const back = await follow(jar, renewal.url, {}, redirectUri);
      const renewed = back.url.startsWith(redirectUri) ? new URL(back.url).searchParams.get('code') : null;
      if (!renewed) throw new Error(`silent renewal refused: ${back.response.status} ${back.url}`);
      session.accessToken = (await exchangeCode(origin, renewed, renewal.verifier)).accessToken;
    },
    /** okta-auth-js's signOut(): /v1/logout with the ID token, then its self-submitting form (303 once signed out). */
    async signOut() {
      const logout = new URL(`${origin}/oauth2/default/v1/logout`);
      logout.search = new URLSearchParams({
        id_token_hint: idToken,
        post_logout_redirect_uri: `${origin}/`,
      }).toString();
      // From the portal itself (the logout CSRF guard asks anyone else first).
      const sameOrigin = { 'sec-fetch-site': 'same-origin', origin };
      const page = await fetch(logout, { headers: { cookie: jar.header(), ...sameOrigin } });
      jar.store(page);
      const html = await page.text();
      const action = /<form id="op.logoutForm" method="post" action="([^"]+)"/.exec(html)?.[1];
      if (!action) throw new Error(`expected the logout form, got ${page.status}: ${html.slice(0, 300)}`);
      const fields = hiddenFields(html);
      const done = await fetch(new URL(action.replace(/&amp;/g, '&'), origin), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded', ...sameOrigin },
        body: new URLSearchParams(fields).toString(),
      });
      await done.arrayBuffer();
      if (done.status !== 303) throw new Error(`sign-out answered ${done.status}`);
    },
  };
  return session;
}

/** An authorization request with PKCE for the portal's client, and its verifier. */
function authorizeUrl(origin, extra = {}) {
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URL(`${origin}/oauth2/default/v1/authorize`);
  authorize.search = new URLSearchParams({
    client_id: CLIENT_ID,
    response_type: 'code',
    scope: SCOPES,
    redirect_uri: `${origin}/login/callback`,
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  return { url: authorize.href, verifier };
}

async function exchangeCode(origin, code, verifier) {
  const token = await fetch(`${origin}/oauth2/default/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: CLIENT_ID,
      code,
      redirect_uri: `${origin}/login/callback`,
      code_verifier: verifier,
    }).toString(),
  });
  if (!token.ok) throw new Error(`token exchange failed: ${token.status} ${await token.text()}`);
  const { access_token: accessToken, id_token: idToken } = await token.json();
  return { accessToken, idToken };
}
