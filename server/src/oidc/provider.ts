import Provider, { errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { AppConfig } from '../config/index.js';
import type { Directory } from '../directory/directory.js';
import type { ProviderStore } from '../storage/provider.js';
import { providerAdapter } from './adapter.js';
import { claimsOf, SCOPE_CLAIMS, SUPPORTED_SCOPES } from './claims.js';
import { escapeHtml, page } from './html.js';
import { renderLogoutPage } from './logout.js';
import type { SigningKeys } from '../keys/ring.js';
import { OKTA_POST_MESSAGE, oktaPostMessageResponseMode } from './okta-compat.js';

/** Okta's route names under the issuer, which okta-auth-js derives from the issuer string (not discovery). */
export const OKTA_ROUTES = {
  authorization: '/v1/authorize',
  token: '/v1/token',
  jwks: '/v1/keys',
  userinfo: '/v1/userinfo',
  end_session: '/v1/logout',
  revocation: '/v1/revoke',
  introspection: '/v1/introspect',
} as const;

/** Interaction pages (sign-in) are Fastify routes under the mount path: `{mount}/interaction/:uid`. */
export const INTERACTION_PATH = '/interaction';

const HOUR = 60 * 60;
const DAY = 24 * HOUR;
/** Access tokens live 10 minutes (Okta's default is 1 hour; shorter limits what a stolen token is worth). */
export const ACCESS_TOKEN_TTL_SECONDS = 10 * 60;
/** ID tokens live 1 hour: the longest-lived JWT the provider signs (src/keys keeps a retired key that long). */
export const ID_TOKEN_TTL_SECONDS = HOUR;
/** A sign-in session lives 14 days: the longest-lived cookie the cookie keys sign. */
export const SESSION_TTL_SECONDS = 14 * DAY;

interface RegistersResponseModes {
  registerResponseMode(
    name: string,
    handler: (ctx: KoaContextWithOIDC, redirectUri: string, response: Record<string, unknown>) => void,
  ): void;
}

export interface ProviderDeps {
  config: AppConfig;
  directory: Directory;
  store: ProviderStore;
  keys: SigningKeys;
  cookieKeys: string[];
}

/** Sign-in redirect targets: `{origin}/login/callback` for the portal and each trusted origin. */
export function redirectUrisFor(config: AppConfig): string[] {
  return config.allowedOrigins.map((origin) => `${origin}/login/callback`);
}

/** Post-logout targets: each origin with and without the trailing slash (okta-auth-js sends either). */
export function postLogoutRedirectUrisFor(config: AppConfig): string[] {
  return config.allowedOrigins.flatMap((origin) => [origin, `${origin}/`]);
}

export function createProvider({ config, directory, store, keys, cookieKeys }: ProviderDeps): Provider {
  const audience = config.API_AUDIENCE;
  const cookieOptions = {
    httpOnly: true,
    signed: true,
    // Every portal origin is on the same site (localhost or one domain), so Lax reaches the silent-renew
    // iframe, and SameSite=None (which browsers drop without Secure) is never needed.
    sameSite: 'lax',
    secure: config.secureCookies,
  } as const;

  const configuration: Configuration = {
    adapter: providerAdapter(store),
    // Every published key of the ring; only the current one may sign (the others are marked verify-only).
    jwks: keys.providerJwks,
    cookies: { keys: cookieKeys, long: cookieOptions, short: cookieOptions },
    clients: [
      {
        client_id: config.settings.ClientId,
        client_name: 'My Profile',
        application_type: 'web',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        redirect_uris: redirectUrisFor(config),
        post_logout_redirect_uris: postLogoutRedirectUrisFor(config),
        id_token_signed_response_alg: 'RS256',
      },
    ],
    routes: OKTA_ROUTES,
    scopes: [...SUPPORTED_SCOPES, 'offline_access'],
    claims: Object.fromEntries(Object.entries(SCOPE_CLAIMS).map(([scope, claims]) => [scope, [...claims]])),
    // Put the scope's claims in the ID token itself: the shell reads the user from the ID token only.
    conformIdTokenClaims: false,
    responseTypes: ['code'],
    pkce: { methods: ['S256'], required: () => true },
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256'],
      userinfoSigningAlgValues: ['RS256'],
      introspectionSigningAlgValues: ['RS256'],
      authorizationSigningAlgValues: ['RS256'],
      requestObjectSigningAlgValues: ['RS256'],
      clientAuthSigningAlgValues: ['RS256'],
    },
    ttl: {
      // Short-lived: the API also checks the token's session on every call, and the shell renews with its
      // refresh token before expiry.
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      IdToken: ID_TOKEN_TTL_SECONDS,
      AuthorizationCode: 60,
      // A sign-in page left open (or requested by a stranger) is kept at most 15 minutes.
      Interaction: 15 * 60,
      Session: SESSION_TTL_SECONDS,
      Grant: 14 * DAY,
      RefreshToken: (ctx, token, client) => {
        // A rotated public-client refresh token keeps its predecessor's remaining lifetime (the default).
        const rotated = ctx?.oidc.entities.RotatedRefreshToken;
        if (rotated && client.clientAuthMethod === 'none' && !token.isSenderConstrained()) {
          return rotated.remainingTTL;
        }
        return 14 * DAY;
      },
    },
    features: {
      devInteractions: { enabled: false },
      // The provider's own userinfo refuses access tokens that carry an audience; src/oidc/userinfo.ts serves it.
      userinfo: { enabled: false },
      revocation: { enabled: true },
      introspection: { enabled: true },
      pushedAuthorizationRequests: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        // okta-auth-js's signOut() expects /v1/logout to end the session and redirect: no question asked when
        // it sends the session's ID token, or the portal itself asks; any other site gets "Sign out?" (logout.ts).
        logoutSource: async (ctx, form) => {
          renderLogoutPage(ctx, form, {
            trustedOrigins: config.allowedOrigins,
            portalUrl: config.PUBLIC_URL,
          });
        },
        postLogoutSuccessSource: async (ctx) => {
          ctx.type = 'html';
          ctx.body = page(
            'Signed out',
            `<h1>You are signed out</h1><p><a href="${escapeHtml(config.PUBLIC_URL)}/">Return to My Profile</a></p>`,
          );
        },
      },
      resourceIndicators: {
        enabled: true,
        // okta-auth-js sends no `resource`: every token is for the account API.
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resourceIndicator) => {
          if (resourceIndicator !== audience) throw new errors.InvalidTarget();
          return {
            scope: SUPPORTED_SCOPES.join(' '),
            audience,
            accessTokenTTL: ACCESS_TOKEN_TTL_SECONDS,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    // sid: the provider session's uid, stable across refreshes.
    // gid: the grant (chain) the token was issued under; with sid, the API checks on every call that both still
    // live, and step-up grants are bound to both (factors/http.ts).
    // uid and scp: what an Okta access token carries, so the API reads both kinds the same way.
    extraTokenClaims: (_ctx, token) => {
      const { sessionUid, accountId, scope, grantId } = token as {
        sessionUid?: string;
        accountId?: string;
        scope?: string;
        grantId?: string;
      };
      return {
        ...(sessionUid ? { sid: sessionUid } : {}),
        ...(grantId ? { gid: grantId } : {}),
        ...(accountId ? { uid: accountId } : {}),
        ...(scope ? { scp: scope.split(' ') } : {}),
      };
    },
    // Refresh tokens whenever the client may use the grant: okta-auth-js never sends prompt=consent, which
    // oidc-provider requires before it keeps offline_access.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Claims are read from the directory each time a token is issued, so a saved profile shows in the next
    // ID token, also one obtained with a refresh token.
    findAccount: async (_ctx, sub) => {
      const user = await directory.findById(sub);
      if (!user) return undefined;
      return { accountId: user.id, claims: () => claimsOf(user) };
    },
    // Consent is implicit for this first-party client: the grant covers what it asked for, up to the
    // supported scopes, for the ID token and for the API. Every authorization gets a grant of its own (only the
    // consent fallback's, interactions/routes.ts, is reused): a grant is one chain of refresh tokens, which the
    // store keeps to one live token, and step-up grants are bound to it (the access token's `gid`), so a copied
    // refresh token's branch cannot share another chain's step-up. The session then names the new grant, and
    // the refresh tokens of its earlier grants stop working (they are session-bound: is_session_bound.js).
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const { client, session, result } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const consented = result?.consent?.grantId;
      const existing = consented ? await ctx.oidc.provider.Grant.find(consented) : undefined;
      const reused = existing && existing.accountId === session.accountId ? existing : undefined;
      const grant =
        reused ?? new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      const requested = [...(ctx.oidc.requestParamScopes ?? [])].filter((scope) =>
        [...SUPPORTED_SCOPES, 'offline_access'].includes(scope),
      );
      const scopes = requested.length > 0 ? requested.join(' ') : 'openid';
      grant.addOIDCScope(scopes);
      grant.addResourceScope(audience, scopes);
      const grantId = await grant.save();
      // A step-up carried over a password or 2-step change by this session goes to its new chain.
      if (!reused) await store.grantCreated(session.accountId, session.uid, grantId);
      return grant;
    },
    interactions: {
      url: (_ctx, interaction) => `${config.oidcMountPath}${INTERACTION_PATH}/${interaction.uid}`,
    },
    clientBasedCORS: (_ctx, origin) => config.allowedOrigins.includes(origin),
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      const description = typeof out.error_description === 'string' ? out.error_description : '';
      ctx.body = page(
        'Sign-in problem',
        `<h1>Something went wrong</h1>
<p role="alert">${escapeHtml(description || String(out.error ?? 'The request could not be completed.'))}</p>
<p><a href="${escapeHtml(config.PUBLIC_URL)}/">Return to My Profile</a></p>`,
      );
    },
    discovery: {
      // The userinfo route is ours (see above); list it so generic clients find it.
      userinfo_endpoint: `${config.issuer}${OKTA_ROUTES.userinfo}`,
      claims_supported: [...new Set(Object.values(SCOPE_CLAIMS).flat())],
    },
  };

  const provider = new Provider(config.issuer, configuration);
  // The edge (oidc/edge.ts) sets Host, X-Forwarded-Proto and X-Forwarded-For on every request from PUBLIC_URL and
  // TRUST_PROXY before the provider sees it, so what Koa reads from them is the server's own decision.
  provider.proxy = true;
  // registerResponseMode is public API (docs/README) but missing from @types/oidc-provider 8.
  (provider as unknown as RegistersResponseModes).registerResponseMode(
    OKTA_POST_MESSAGE,
    oktaPostMessageResponseMode(config.allowedOrigins),
  );
  return provider;
}
