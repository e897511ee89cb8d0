/**
 * The org's default authorization server (`{org}/oauth2/default`) for the Okta org stand-in: what okta-auth-js 8
 * signs in against in Okta mode. A second oidc-provider 8.8.1 instance, configured like the embedded one
 * (src/oidc/provider.ts: Okta's routes, PKCE S256, okta_post_message, rp-initiated logout without a question,
 * okta-auth-js's revoke form, CORS for the clients' origins), whose tokens are shaped like Okta's: the access token
 * is an RS256 JWT with `ver`, `jti`, `iss`, `aud: api://default`, `cid`, `uid`, `scp` (array), `auth_time` and the
 * login as `sub`; the ID token's `sub` is the Okta user id. The accounts are the org's users, signed in on a plain
 * form of the stand-in that checks the org's current password and refuses users who are not ACTIVE.
 * See README.md in this folder ("Authorization server").
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import Provider, {
  errors,
  type Adapter,
  type AdapterPayload,
  type Configuration,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import { allowInlineScript, escapeHtml, page } from '../../../src/oidc/html.js';
import {
  OKTA_POST_MESSAGE,
  oktaPostMessageResponseMode,
  providerCors,
  readRevokeRequest,
  RevokeRequestError,
} from '../../../src/oidc/okta-compat.js';
import { OKTA_ROUTES } from '../../../src/oidc/provider.js';

/** Where the org serves its default authorization server: the issuer is `{org.url}${DEFAULT_AUTHORIZATION_SERVER}`. */
export const DEFAULT_AUTHORIZATION_SERVER = '/oauth2/default';
/** The default authorization server's audience at Okta. */
export const DEFAULT_AUDIENCE = 'api://default';
/** The sign-in form: `{org.url}/signin/{interaction uid}` (outside /api and /oauth2). */
export const SIGN_IN_PATH = '/signin';
/** What Okta's sign-in widget says for a wrong password, an unknown user or one who may not sign in. */
export const SIGN_IN_REFUSED = 'Unable to sign in';
/** What a browser asks the org for besides the flow: its pages' icon (Okta serves one; a 404 does no harm). */
const FAVICON = '/favicon.ico';

export interface AuthorizationServerClient {
  /** The SPA's client id (the settings' ClientId, the `cid` of its access tokens). */
  clientId: string;
  /** Sign-in redirect URIs; their origins are the CORS origins (Okta's trusted origins). None for `passwordGrant`. */
  redirectUris?: string[];
  /** Sign-out redirect URIs (okta-auth-js sends `{origin}/`). */
  postLogoutRedirectUris?: string[];
  /**
   * A native app with only the Resource Owner Password grant (`pnpm okta:check` signs in with one): `grant_type=
   * password` at `/v1/token`, no browser flow. Other clients are refused that grant (unauthorized_client).
   */
  passwordGrant?: boolean;
}

export interface AuthorizationServerOptions {
  clients: AuthorizationServerClient[];
  /** Access token lifetime (Okta's default: one hour). */
  accessTokenTtlSeconds?: number;
}

/** The org's side of a sign-in: its users, their current password and status. */
export interface SignInAccounts {
  /** The user by id or login, as the org holds it now. */
  find(
    idOrLogin: string,
  ): { id: string; status: string; profile: Record<string, unknown>; lastUpdated: string } | undefined;
  passwordMatches(userId: string, password: string): boolean;
  /** A sign-in succeeded (Okta sets the user's `lastLogin` and logs it), from this client. */
  signedIn(userId: string, client: SignInClient): void;
  /** A known user's sign-in was refused: a wrong password (Okta logs it). */
  signInRefused(userId: string, client: SignInClient): void;
  /** The provider failed on a request: recorded by the org as a stand-in error, so the test fails. */
  failed(method: string, path: string, error: unknown): void;
}

/** The browser or app that signed in: its User-Agent and address, as the System Log records them. */
export interface SignInClient {
  userAgent: string | undefined;
  ipAddress: string | undefined;
}

export interface AuthorizationServer {
  readonly issuer: string;
  /** The public keys the server signs with (served at `{issuer}/v1/keys`). */
  readonly publicJwks: { keys: JWK[] };
  /** Whether the request is the authorization server's (its issuer path or the sign-in form). */
  owns(path: string): boolean;
  /** Answers one of its requests; the body has not been read. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
  /**
   * Test-only (Okta has no such thing): the user's next sign-in on the form is recorded as made `minutes` ago, so
   * its tokens carry that `auth_time` (a stale sign-in without moving any clock). Once: later sign-ins are fresh.
   */
  backdateNextSignIn(userId: string, minutes: number): void;
  /**
   * Okta's DELETE /api/v1/users/{userId}/clients/{clientId}/tokens: every refresh token of the user for the client
   * is gone, so a refresh with one answers invalid_grant; the sign-in sessions and grants stay (a silent renewal
   * with the session's cookie still gets tokens). Answers how many were usable.
   */
  revokeRefreshTokens(userId: string, clientId: string): number;
}

/** The scopes okta-auth-js asks for (openid profile email phone) and offline_access; the claims each releases. */
const SCOPE_CLAIMS: Record<string, string[]> = {
  // amr (pwd): how the user signed in, as Okta's ID token says it.
  openid: ['sub', 'amr'],
  // Okta's profile scope (and `country`, the portal's custom claim from the user's countryCode: a real org needs
  // it added to the authorization server's claims, see README).
  profile: [
    'name',
    'given_name',
    'family_name',
    'preferred_username',
    'locale',
    'zoneinfo',
    'updated_at',
    'country',
  ],
  email: ['email', 'email_verified'],
  phone: ['phone_number'],
};
const SCOPES = [...Object.keys(SCOPE_CLAIMS), 'offline_access'];

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/** Okta's claims of a user (Okta: OpenID Connect & OAuth 2.0 API, "Scope-dependent claims"). */
function claimsOf(user: NonNullable<ReturnType<SignInAccounts['find']>>): Record<string, unknown> {
  const p = user.profile;
  const given = text(p.firstName);
  const family = text(p.lastName);
  return {
    sub: user.id,
    name: [given, family].filter(Boolean).join(' ') || undefined,
    given_name: given,
    family_name: family,
    preferred_username: text(p.login),
    locale: text(p.locale),
    zoneinfo: text(p.timezone),
    updated_at: Math.floor(Date.parse(user.lastUpdated) / 1000),
    country: text(p.countryCode),
    email: text(p.email),
    email_verified: true,
    phone_number: text(p.mobilePhone) ?? text(p.primaryPhone),
  };
}

const PASSWORD_GRANT = 'password';
/** Okta's answer to a wrong password, an unknown login or a user who may not sign in (all alike). */
export const INVALID_CREDENTIALS = 'The credentials provided were invalid.';

/**
 * The Resource Owner Password grant as Okta's default authorization server answers it: the user's login and
 * current password (ACTIVE users only), the requested scopes among the server's; an access token shaped like the
 * code flow's (auth_time = now) and, with openid, an ID token.
 */
function passwordGrant(accounts: SignInAccounts, resourceServerInfo: object) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>): Promise<void> => {
    const params = ctx.oidc.params as Record<string, string | undefined>;
    const client = ctx.oidc.client;
    if (!client) throw new errors.InvalidClient('client not found');
    const username = (params.username ?? '').trim();
    const found = username === '' ? undefined : accounts.find(username);
    const user = String(found?.profile.login).toLowerCase() === username.toLowerCase() ? found : undefined;
    const from = { userAgent: ctx.get('user-agent') || undefined, ipAddress: ctx.ip };
    if (!user || user.status !== 'ACTIVE' || !accounts.passwordMatches(user.id, params.password ?? '')) {
      if (user?.status === 'ACTIVE') accounts.signInRefused(user.id, from);
      const refused = new errors.InvalidGrant('wrong credentials');
      refused.error_description = INVALID_CREDENTIALS;
      throw refused;
    }
    const requested = (params.scope ?? '').split(' ').filter(Boolean);
    if (requested.length === 0 || requested.some((scope) => !SCOPES.includes(scope))) {
      const refused = new errors.InvalidScope('scope', params.scope ?? '');
      refused.error_description =
        requested.length === 0
          ? "The authorization server resource does not have any configured default scopes, 'scope' must be provided."
          : 'One or more scopes are not configured for the authorization server resource.';
      throw refused;
    }
    const scope = requested.join(' ');
    accounts.signedIn(user.id, from);
    const { AccessToken, Account, Grant, IdToken } = ctx.oidc.provider;
    // Not in the package's types: the model the code grant gives its access token (lib/models/resource_server.js).
    const { ResourceServer } = ctx.oidc.provider as unknown as {
      ResourceServer: new (
        identifier: string,
        info: object,
      ) => NonNullable<InstanceType<typeof AccessToken>['resourceServer']>;
    };
    const account = await Account.findAccount(ctx, user.id);
    if (!account) throw new errors.InvalidGrant('account not found');
    const grant = new Grant({ clientId: client.clientId, accountId: user.id });
    grant.addOIDCScope(scope);
    grant.addResourceScope(DEFAULT_AUDIENCE, scope);
    const grantId = await grant.save();
    ctx.oidc.entity('Grant', grant);
    ctx.oidc.entity('Account', account);

    const at = new AccessToken({ accountId: user.id, client, grantId, gty: PASSWORD_GRANT, scope });
    at.resourceServer = new ResourceServer(DEFAULT_AUDIENCE, resourceServerInfo);
    ctx.oidc.entity('AccessToken', at);
    const accessToken = await at.save();

    let idToken: string | undefined;
    if (requested.includes('openid')) {
      const token = new IdToken(
        { ...(await account.claims('id_token', scope, {}, [])), amr: ['pwd'] },
        { ctx },
      );
      // What the code grant sets too (lib/actions/grants/authorization_code.js); not in the package's types.
      Object.assign(token, { scope, mask: {}, rejected: [] });
      // Set, not masked by the scopes: Okta's ID token always says when the user signed in (now).
      token.set('auth_time', Math.floor(Date.now() / 1000));
      token.set('at_hash', accessToken);
      idToken = await token.issue({ use: 'idtoken' });
    }
    ctx.body = {
      token_type: 'Bearer',
      expires_in: at.expiration,
      access_token: accessToken,
      scope,
      ...(idToken ? { id_token: idToken } : {}),
    };
    await next();
  };
}

/** oidc-provider's storage in memory (this is a test stand-in): one map per model, expiry honoured on read. */
class MemoryAdapter implements Adapter {
  private static stores = new WeakMap<
    object,
    Map<string, Map<string, { payload: AdapterPayload; expiresAt?: number }>>
  >();
  private readonly items: Map<string, { payload: AdapterPayload; expiresAt?: number }>;

  constructor(owner: object, name: string) {
    let models = MemoryAdapter.stores.get(owner);
    if (!models) {
      models = new Map();
      MemoryAdapter.stores.set(owner, models);
    }
    let items = models.get(name);
    if (!items) {
      items = new Map();
      models.set(name, items);
    }
    this.items = items;
  }

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    this.items.set(id, { payload, ...(expiresIn ? { expiresAt: Date.now() + expiresIn * 1000 } : {}) });
  }
  async find(id: string): Promise<AdapterPayload | undefined> {
    const item = this.items.get(id);
    if (!item) return undefined;
    if (item.expiresAt !== undefined && item.expiresAt <= Date.now()) {
      this.items.delete(id);
      return undefined;
    }
    return item.payload;
  }
  async findByUserCode(): Promise<undefined> {
    return undefined;
  }
  async findByUid(uid: string): Promise<AdapterPayload | undefined> {
    for (const [id, item] of this.items) if (item.payload.uid === uid) return this.find(id);
    return undefined;
  }
  async consume(id: string): Promise<void> {
    const item = this.items.get(id);
    if (item) item.payload.consumed = Math.floor(Date.now() / 1000);
  }
  async destroy(id: string): Promise<void> {
    this.items.delete(id);
  }
  async revokeByGrantId(grantId: string): Promise<void> {
    for (const [id, item] of this.items) if (item.payload.grantId === grantId) this.items.delete(id);
  }

  /** Deletes the model's items that `matches`; answers how many of them were usable (not consumed, not expired). */
  destroyWhere(matches: (payload: AdapterPayload) => boolean): number {
    let usable = 0;
    for (const [id, item] of this.items) {
      if (!matches(item.payload)) continue;
      const expired = item.expiresAt !== undefined && item.expiresAt <= Date.now();
      if (!expired && !item.payload.consumed) usable += 1;
      this.items.delete(id);
    }
    return usable;
  }
}

interface RegistersResponseModes {
  registerResponseMode(
    name: string,
    handler: (ctx: KoaContextWithOIDC, redirectUri: string, response: Record<string, unknown>) => void,
  ): void;
}

function signInPage(action: string, error?: string, username = ''): string {
  const describedBy = error ? ' aria-describedby="signin-error"' : '';
  return page(
    'Sign In',
    `<h1>Sign In</h1>
${error ? `<div id="signin-error" role="alert">${escapeHtml(error)}</div>` : ''}
<form method="post" action="${escapeHtml(action)}">
<label for="okta-signin-username">Username</label>
<input id="okta-signin-username" name="username" type="text" autocomplete="username" required value="${escapeHtml(username)}"${describedBy}>
<label for="okta-signin-password">Password</label>
<input id="okta-signin-password" name="password" type="password" autocomplete="current-password" required${describedBy}>
<button type="submit">Sign in</button>
</form>`,
  );
}

function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(new URLSearchParams(Buffer.concat(chunks).toString('utf8'))));
    req.on('error', reject);
  });
}

function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  res.end(html);
}

/** The origins of the clients' redirect URIs: where okta-auth-js calls the token, keys and revoke endpoints from. */
export function clientOrigins(clients: readonly AuthorizationServerClient[]): string[] {
  return [
    ...new Set(clients.flatMap((client) => (client.redirectUris ?? []).map((uri) => new URL(uri).origin))),
  ];
}

/**
 * Builds the authorization server of the org at `orgUrl`. `extraJwks`: keys a test signs tokens with itself
 * (the org's `jwks` option), published next to the server's own.
 */
export function createAuthorizationServer(
  orgUrl: string,
  options: AuthorizationServerOptions,
  accounts: SignInAccounts,
  extraJwks?: { keys: JWK[] },
): AuthorizationServer {
  if (options.clients.length === 0) throw new Error('authorizationServer: give at least one client');
  const issuer = `${orgUrl}${DEFAULT_AUTHORIZATION_SERVER}`;
  const accessTokenTtl = options.accessTokenTtlSeconds ?? 3600;
  const origins = clientOrigins(options.clients);

  const kid = `stand-in-${randomBytes(6).toString('hex')}`;
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateJwk = { ...(privateKey.export({ format: 'jwk' }) as JWK), kid, alg: 'RS256', use: 'sig' };
  const publicJwks = {
    keys: [{ ...(publicKey.export({ format: 'jwk' }) as JWK), kid, alg: 'RS256', use: 'sig' }],
  };
  const adapterOwner = {};
  /** backdateNextSignIn: user id → minutes, taken by that user's next sign-in on the form. */
  const backdatedSignIns = new Map<string, number>();

  const resourceServerInfo = {
    scope: SCOPES.join(' '),
    audience: DEFAULT_AUDIENCE,
    accessTokenTTL: accessTokenTtl,
    accessTokenFormat: 'jwt' as const,
    jwt: { sign: { alg: 'RS256' as const } },
  };

  const loginOf = (accountId: string | undefined): string | undefined =>
    accountId === undefined ? undefined : text(accounts.find(accountId)?.profile.login);

  const configuration: Configuration = {
    adapter: (name: string) => new MemoryAdapter(adapterOwner, name),
    jwks: { keys: [privateJwk] },
    cookies: {
      keys: [randomBytes(32).toString('base64url')],
      // Plain http on loopback: Secure cookies would be dropped.
      long: { httpOnly: true, signed: true, sameSite: 'lax', secure: false },
      short: { httpOnly: true, signed: true, sameSite: 'lax', secure: false },
    },
    clients: options.clients.map((client) =>
      client.passwordGrant
        ? {
            client_id: client.clientId,
            // Okta's native app with the Resource Owner Password grant only: no redirects, no browser.
            application_type: 'native',
            token_endpoint_auth_method: 'none',
            grant_types: [PASSWORD_GRANT],
            response_types: [],
            id_token_signed_response_alg: 'RS256',
            require_auth_time: true,
          }
        : {
            client_id: client.clientId,
            application_type: 'web',
            token_endpoint_auth_method: 'none',
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            redirect_uris: client.redirectUris ?? [],
            post_logout_redirect_uris: client.postLogoutRedirectUris ?? [],
            id_token_signed_response_alg: 'RS256',
            // Okta's ID token always says when the user signed in.
            require_auth_time: true,
          },
    ),
    routes: OKTA_ROUTES,
    scopes: SCOPES,
    claims: SCOPE_CLAIMS,
    // The shell reads the user from the ID token only: the scopes' claims go in it (see README on Okta's thin ID
    // token in the code flow).
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    pkce: { methods: ['S256'], required: () => true },
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256'],
      requestObjectSigningAlgValues: ['RS256'],
    },
    ttl: {
      AccessToken: accessTokenTtl,
      IdToken: 3600,
      AuthorizationCode: 60,
      Interaction: 15 * 60,
      Session: 24 * 60 * 60,
      Grant: 24 * 60 * 60,
      RefreshToken: 24 * 60 * 60,
    },
    features: {
      devInteractions: { enabled: false },
      // oidc-provider's userinfo refuses access tokens with an audience: /v1/userinfo is served below.
      userinfo: { enabled: false },
      revocation: { enabled: true },
      introspection: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        // Okta's /v1/logout ends the session and redirects without a question: the form posts itself.
        logoutSource: async (ctx, form) => {
          const autoForm = form.replace('</form>', '<input type="hidden" name="logout" value="yes"/></form>');
          const script = allowInlineScript(ctx.response, 'document.forms[0].submit();');
          ctx.type = 'html';
          ctx.body = page(
            'Signing out',
            `<h1>Signing out…</h1>${autoForm}<noscript><button type="submit" form="op.logoutForm">Sign out</button></noscript>`,
          ).replace('</body>', `<script>${script}</script></body>`);
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.type = 'html';
          ctx.body = page('Signed out', '<h1>You are signed out</h1>');
        },
      },
      resourceIndicators: {
        enabled: true,
        // okta-auth-js sends no `resource`: every token is for the default authorization server's audience.
        defaultResource: () => DEFAULT_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => {
          if (resourceIndicator !== DEFAULT_AUDIENCE) throw new errors.InvalidTarget();
          return resourceServerInfo;
        },
      },
    },
    formats: {
      customizers: {
        // Okta's access token: exactly its claims, in its order, the login as `sub`, no `typ` header.
        jwt: async (ctx, token, jwt) => {
          const payload = jwt.payload as Record<string, unknown>;
          const accountId = (token as { accountId?: string }).accountId;
          const entities = ctx?.oidc.entities;
          // The password grant is a sign-in now: its auth_time is the token's issue time.
          const authTime =
            entities?.AuthorizationCode?.authTime ??
            entities?.RefreshToken?.authTime ??
            ((token as { gty?: string }).gty === PASSWORD_GRANT ? payload.iat : undefined);
          jwt.header = { typ: undefined };
          jwt.payload = {
            ver: 1,
            // oidc-provider finds a JWT access token by its jti (revocation): Okta's `AT.` prefix is left out.
            jti: payload.jti,
            iss: payload.iss,
            aud: payload.aud,
            iat: payload.iat,
            exp: payload.exp,
            cid: payload.client_id,
            ...(accountId ? { uid: accountId } : {}),
            scp: typeof payload.scope === 'string' ? payload.scope.split(' ') : [],
            ...(authTime !== undefined ? { auth_time: authTime } : {}),
            sub: loginOf(accountId) ?? payload.sub,
          };
          // oidc-provider signs the object it passed in; the return is for the type only.
          return jwt;
        },
      },
    },
    // Refresh tokens for the SPA whatever it asked for (Okta: only with offline_access; see README for why).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Read at each token: a profile saved in the org shows in the next ID token; a user no longer ACTIVE gets none.
    findAccount: async (_ctx, sub) => {
      const user = accounts.find(sub);
      if (!user || user.status !== 'ACTIVE') return undefined;
      return {
        accountId: user.id,
        claims: () => {
          const current = accounts.find(sub) ?? user;
          return claimsOf(current) as { sub: string };
        },
      };
    },
    // Okta's default authorization server grants a first-party SPA what it asks for, without a consent page.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const { client, session, result } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const grantId = result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      const existing = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
      const grant =
        existing && existing.accountId === session.accountId
          ? existing
          : new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      const requested = [...(ctx.oidc.requestParamScopes ?? [])].filter((scope) => SCOPES.includes(scope));
      const scopes = requested.length > 0 ? requested.join(' ') : 'openid';
      grant.addOIDCScope(scopes);
      grant.addResourceScope(DEFAULT_AUDIENCE, scopes);
      await grant.save();
      return grant;
    },
    interactions: { url: (_ctx, interaction) => `${SIGN_IN_PATH}/${interaction.uid}` },
    clientBasedCORS: (_ctx, origin) => origins.includes(origin),
    discovery: { userinfo_endpoint: `${issuer}${OKTA_ROUTES.userinfo}` },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      const description = typeof out.error_description === 'string' ? out.error_description : '';
      ctx.body = page(
        'Sign-in problem',
        `<h1>Something went wrong</h1><p role="alert">${escapeHtml(description || String(out.error ?? 'error'))}</p>`,
      );
    },
  };

  const provider = new Provider(issuer, configuration);
  provider.registerGrantType(PASSWORD_GRANT, passwordGrant(accounts, resourceServerInfo), [
    'username',
    'password',
    'scope',
  ]);
  // Okta's text for a grant the app does not have (oauth2-error-codes.json), naming the app's grant types.
  // oidc-provider answers invalid_request "requested grant type is not allowed for this client"; Okta answers this.
  provider.use(async (ctx, next) => {
    await next();
    const { client, params } = (ctx as KoaContextWithOIDC).oidc ?? {};
    const grantType = typeof params?.grant_type === 'string' ? params.grant_type : undefined;
    if (
      ctx.path === OKTA_ROUTES.token &&
      ctx.status === 400 &&
      client &&
      grantType &&
      !client.grantTypeAllowed(grantType)
    ) {
      ctx.body = {
        error: 'unauthorized_client',
        error_description: `The client is not authorized to use the provided grant type. Configured grant types: [${(client.grantTypes ?? []).join(', ')}].`,
      };
    }
  });
  (provider as unknown as RegistersResponseModes).registerResponseMode(
    OKTA_POST_MESSAGE,
    oktaPostMessageResponseMode(origins),
  );
  provider.on('server_error', (ctx: KoaContextWithOIDC, error: unknown) =>
    accounts.failed(ctx.method, ctx.path, error),
  );
  const callback = provider.callback();
  const cors = providerCors(origins);

  async function signIn(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    let details: Awaited<ReturnType<Provider['interactionDetails']>>;
    try {
      details = await provider.interactionDetails(req, res);
    } catch {
      sendHtml(
        res,
        400,
        page('Sign-in problem', `<h1>Sign-in problem</h1><p role="alert">${SIGN_IN_REFUSED}</p>`),
      );
      return;
    }
    if (path !== `${SIGN_IN_PATH}/${details.uid}`) {
      sendHtml(res, 404, page('Not found', '<h1>Not found</h1>'));
      return;
    }
    if (details.prompt.name !== 'login') {
      // Consent is implicit (loadExistingGrant): nothing to ask.
      await provider.interactionFinished(req, res, {}, { mergeWithLastSubmission: true });
      return;
    }
    if (req.method === 'GET') {
      sendHtml(res, 200, signInPage(path, undefined, details.params.login_hint as string | undefined));
      return;
    }
    if (req.method !== 'POST') {
      sendHtml(res, 405, page('Not allowed', '<h1>Not allowed</h1>'));
      return;
    }
    const form = await readForm(req);
    const username = (form.get('username') ?? '').trim();
    const password = form.get('password') ?? '';
    const found = username === '' ? undefined : accounts.find(username);
    // The username is the login (any case), never the user id.
    const user = String(found?.profile.login).toLowerCase() === username.toLowerCase() ? found : undefined;
    // One answer for every refusal, as Okta's widget gives: it tells nothing about which part was wrong.
    const client = { userAgent: req.headers['user-agent'], ipAddress: req.socket.remoteAddress };
    if (!user || user.status !== 'ACTIVE' || !accounts.passwordMatches(user.id, password)) {
      if (user?.status === 'ACTIVE') accounts.signInRefused(user.id, client);
      sendHtml(res, 401, signInPage(path, SIGN_IN_REFUSED, username));
      return;
    }
    accounts.signedIn(user.id, client);
    // A test's backdated sign-in (backdateNextSignIn): oidc-provider's `ts` is the session's login time (auth_time).
    const backdatedMinutes = backdatedSignIns.get(user.id);
    backdatedSignIns.delete(user.id);
    const ts =
      backdatedMinutes === undefined ? undefined : Math.floor(Date.now() / 1000) - backdatedMinutes * 60;
    // A new login (fresh auth_time), also when a session exists (prompt=login, max_age).
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: user.id, amr: ['pwd'], remember: true, ...(ts === undefined ? {} : { ts }) } },
      { mergeWithLastSubmission: false },
    );
  }

  const ownKeys = createLocalJWKSet(publicJwks);

  /** Okta's /v1/userinfo: the user's claims released by the access token's scopes. */
  async function userinfo(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [scheme, credential] = (req.headers.authorization ?? '').split(/\s+/, 2);
    const refuse = () => {
      res.writeHead(401, {
        'WWW-Authenticate': 'Bearer error="invalid_token", error_description="The access token is invalid."',
      });
      res.end();
    };
    if (scheme !== 'Bearer' || !credential) return refuse();
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(credential, ownKeys, { issuer, audience: DEFAULT_AUDIENCE }));
    } catch {
      return refuse();
    }
    const user = typeof claims.uid === 'string' ? accounts.find(claims.uid) : undefined;
    if (!user || user.status !== 'ACTIVE') return refuse();
    const all = claimsOf(user);
    const released: Record<string, unknown> = { sub: user.id };
    const scopes = Array.isArray(claims.scp) ? (claims.scp as unknown[]) : [];
    for (const scope of scopes) {
      for (const name of SCOPE_CLAIMS[String(scope)] ?? []) {
        if (all[name] !== undefined) released[name] = all[name];
      }
    }
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(JSON.stringify(released));
  }

  async function endpoint(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const path = url.split('?')[0] ?? '/';
    // The provider sees the path under its mount, like middie or Express hand it over.
    const mounted = url.slice(DEFAULT_AUTHORIZATION_SERVER.length);
    Object.assign(req, { originalUrl: url });
    req.url = mounted.startsWith('/') ? mounted : `/${mounted}`;
    if (extraJwks && req.method === 'GET' && path === `${DEFAULT_AUTHORIZATION_SERVER}${OKTA_ROUTES.jwks}`) {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify({ keys: [...publicJwks.keys, ...extraJwks.keys] }));
      return;
    }
    if (path === `${DEFAULT_AUTHORIZATION_SERVER}${OKTA_ROUTES.userinfo}`) {
      await userinfo(req, res);
      return;
    }
    if (req.method === 'POST' && path === `${DEFAULT_AUTHORIZATION_SERVER}${OKTA_ROUTES.revocation}`) {
      // okta-auth-js revokes with `Authorization: Basic base64(clientId)`, which oidc-provider refuses.
      try {
        const { request } = await readRevokeRequest(req);
        await callback(request, res);
      } catch (failure) {
        if (!(failure instanceof RevokeRequestError)) throw failure;
        res.writeHead(failure.statusCode, { 'Content-Type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ error: failure.error, error_description: failure.description }));
      }
      return;
    }
    await callback(req, res);
  }

  return {
    issuer,
    publicJwks,
    backdateNextSignIn(userId, minutes) {
      if (!Number.isFinite(minutes) || minutes <= 0) {
        throw new Error(`backdateNextSignIn: minutes must be a positive number, not ${minutes}`);
      }
      backdatedSignIns.set(userId, minutes);
    },
    revokeRefreshTokens: (userId, clientId) =>
      new MemoryAdapter(adapterOwner, 'RefreshToken').destroyWhere(
        (payload) => payload.accountId === userId && payload.clientId === clientId,
      ),
    owns: (path) =>
      path === DEFAULT_AUTHORIZATION_SERVER ||
      path.startsWith(`${DEFAULT_AUTHORIZATION_SERVER}/`) ||
      path.startsWith(`${SIGN_IN_PATH}/`) ||
      path === FAVICON,
    async handle(req, res) {
      const path = (req.url ?? '/').split('?')[0] ?? '/';
      if (path === FAVICON) {
        res.writeHead(404).end();
        return;
      }
      if (path.startsWith(`${SIGN_IN_PATH}/`)) {
        await signIn(req, res, path);
        return;
      }
      await new Promise<void>((resolve, reject) => {
        cors(req, res, (error) => {
          if (error) return reject(error);
          if (res.writableEnded) return resolve();
          endpoint(req, res).then(resolve, reject);
        });
      });
    },
  };
}
