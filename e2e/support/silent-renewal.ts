/**
 * A signed-in browser's silent renewal over HTTP, for tests that call the API with the page's token directly: a
 * password or 2-step change ends every grant of the account, the caller's too, and the page renews with its
 * provider session cookie (prompt=none, then the code exchange). `context.request` shares the browser context's
 * cookies, so this is the renewal the shell makes in its hidden iframe, minus the iframe.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { APIRequestContext } from '@playwright/test';

const SCOPES = 'openid profile email phone';

/** A fresh access token for the session whose cookie `request` holds, at the embedded provider of `origin`. */
export async function renewWithSessionCookie(
  request: APIRequestContext,
  origin: string,
  clientId: string,
): Promise<string> {
  const verifier = randomBytes(32).toString('base64url');
  const redirectUri = `${origin}/login/callback`;
  let url = `${origin}/oauth2/default/v1/authorize?${new URLSearchParams({
    client_id: clientId,
    response_type: 'code',
    scope: SCOPES,
    redirect_uri: redirectUri,
    prompt: 'none',
    state: randomBytes(8).toString('hex'),
    nonce: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString()}`;
  for (let hops = 0; !url.startsWith(redirectUri); hops += 1) {
    if (hops > 5) throw new Error(`silent renewal: too many redirects from ${origin}`);
    const response = await request.get(url, { maxRedirects: 0 });
    const location = response.headers().location;
    if (!location) throw new Error(`silent renewal: ${response.status()} without a redirect at ${url}`);
    url = new URL(location, url).href;
  }
  const code = new URL(url).searchParams.get('code');
  if (!code) throw new Error(`silent renewal refused: ${url}`);
  const token = await request.post(`${origin}/oauth2/default/v1/token`, {
    headers: { origin },
    form: {
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    },
  });
  if (!token.ok()) throw new Error(`silent renewal: token exchange ${token.status()} ${await token.text()}`);
  return ((await token.json()) as { access_token: string }).access_token;
}
