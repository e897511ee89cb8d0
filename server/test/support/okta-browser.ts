/**
 * A browser's side of the sign-in at the Okta org stand-in's default authorization server (./okta-org), over fetch:
 * one cookie jar per browser (the org session), the sign-in form, PKCE, the code exchange, a refresh, and the
 * silent renewal okta-auth-js makes with the org session (prompt=none, okta_post_message).
 */
import { createHash, randomBytes } from 'node:crypto';

/** What okta-auth-js asks for (shared-auth PORTAL_SCOPES). */
export const BROWSER_SCOPES = 'openid profile email phone';

export interface OrgTokens {
  access_token: string;
  id_token: string;
  refresh_token?: string;
}

/** A browser at one org: one cookie jar (the org session) and manual redirects. */
export class CookieBrowser {
  private readonly cookies = new Map<string, string>();

  constructor(protected readonly orgUrl: string) {}

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expires = attributes.find((a) => a.trim().toLowerCase().startsWith('expires='));
      const gone =
        value === '' || (expires !== undefined && Date.parse(expires.split('=')[1] ?? '') < Date.now());
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return response;
  }

  /** Follows the org's redirects; stops at a page (any non-redirect) or at a redirect leaving the org. */
  async navigate(url: string, init: RequestInit = {}): Promise<{ url: string; response: Response }> {
    let current = url;
    let response = await this.fetch(current, init);
    for (let hops = 0; response.status >= 300 && response.status < 400; hops += 1) {
      if (hops > 10) throw new Error(`too many redirects from ${url}`);
      current = new URL(response.headers.get('location') ?? '', current).href;
      if (!current.startsWith(this.orgUrl)) return { url: current, response };
      response = await this.fetch(current);
    }
    return { url: current, response };
  }
}

/** A browser signed in (or not) at one org, for one SPA client. */
export class OrgBrowser extends CookieBrowser {
  constructor(
    orgUrl: string,
    private readonly clientId: string,
    private readonly redirectUri: string,
  ) {
    super(orgUrl);
  }

  private get issuer(): string {
    return `${this.orgUrl}/oauth2/default`;
  }

  private authorizeUrl(verifier: string, state: string, extra: Record<string, string>): string {
    const params = new URLSearchParams({
      client_id: this.clientId,
      redirect_uri: this.redirectUri,
      response_type: 'code',
      response_mode: 'query',
      scope: BROWSER_SCOPES,
      state,
      nonce: randomBytes(8).toString('hex'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...extra,
    });
    return `${this.issuer}/v1/authorize?${params.toString()}`;
  }

  /** POST /v1/token as the SPA: the answer's status and body. */
  async tokenRequest(
    form: Record<string, string>,
  ): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${this.issuer}/v1/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(this.redirectUri).origin,
      },
      body: new URLSearchParams({ client_id: this.clientId, ...form }).toString(),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  private async exchange(code: string, verifier: string): Promise<OrgTokens> {
    const { status, body } = await this.tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: this.redirectUri,
      code_verifier: verifier,
    });
    if (status !== 200) throw new Error(`code exchange answered ${status}: ${JSON.stringify(body)}`);
    return body as unknown as OrgTokens;
  }

  /** The whole sign-in on the org's form (starts the org session in this browser). */
  async signIn(login: string, password: string): Promise<OrgTokens> {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(8).toString('hex');
    const page = await this.navigate(this.authorizeUrl(verifier, state, {}));
    const html = await page.response.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    if (page.response.status !== 200 || !action) throw new Error(`no sign-in form at ${page.url}: ${html}`);
    const { url } = await this.navigate(new URL(action.replace(/&amp;/g, '&'), page.url).href, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: login, password }).toString(),
    });
    const code = url.startsWith(this.redirectUri) ? new URL(url).searchParams.get('code') : null;
    if (!code) throw new Error(`the sign-in of ${login} ended at ${url}, without a code`);
    return this.exchange(code, verifier);
  }

  /** A refresh with the given refresh token: the token endpoint's answer. */
  refresh(refreshToken: string) {
    return this.tokenRequest({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      scope: BROWSER_SCOPES,
    });
  }

  /**
   * okta-auth-js's token.getWithoutPrompt(): prompt=none with the org session's cookie, the code posted by the
   * okta_post_message page, then exchanged. Undefined when the org answers an error (no org session).
   */
  async renewSilently(): Promise<OrgTokens | undefined> {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(8).toString('hex');
    const { response } = await this.navigate(
      this.authorizeUrl(verifier, state, { prompt: 'none', response_mode: 'okta_post_message' }),
    );
    const posted = /var data=(\{[^;]*\});/.exec(await response.text())?.[1];
    const data = JSON.parse(posted ?? '{}') as { code?: string; state?: string };
    if (data.state !== state || !data.code) return undefined;
    return this.exchange(data.code, verifier);
  }
}
