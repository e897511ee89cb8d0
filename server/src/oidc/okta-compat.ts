/**
 * What okta-auth-js 8 / okta-react 6 expect from an Okta org that oidc-provider does not do by itself.
 * Each piece is small and proven by test/okta-compat.test.ts.
 */
import { randomUUID } from 'node:crypto';
import { IncomingMessage, type ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { allowInlineScript, editCsp, escapeHtml, page, scriptJson } from './html.js';

export const OKTA_POST_MESSAGE = 'okta_post_message';

/**
 * Silent renew without a refresh token: okta-auth-js loads /authorize with `response_mode=okta_post_message`
 * (and prompt=none) in a hidden iframe and waits for a `message` event whose data is `{code, state}` or
 * `{error, error_description, state}` and whose origin is the issuer's. This page posts exactly that to the
 * parent window, at the origin of the (already validated) redirect_uri.
 */
export function oktaPostMessageResponseMode(allowedOrigins: readonly string[]) {
  return function respond(
    ctx: KoaContextWithOIDC,
    redirectUri: string,
    response: Record<string, unknown>,
  ): void {
    const data: Record<string, unknown> = {};
    for (const key of ['code', 'error', 'error_description', 'state'] as const) {
      if (response[key] !== undefined) data[key] = response[key];
    }
    const targetOrigin = new URL(redirectUri).origin;
    ctx.type = 'html';
    ctx.status = 200;
    // The page lives in an iframe of the client's page, which may sit on any of the trusted origins.
    ctx.remove('X-Frame-Options');
    editCsp(ctx.response, (directives) => directives.set('frame-ancestors', ["'self'", ...allowedOrigins]));
    const script = allowInlineScript(
      ctx.response,
      `(function(){var data=${scriptJson(data)};var target=window.parent!==window?window.parent:window.opener;` +
        `if(target){target.postMessage(data,${scriptJson(targetOrigin)});}})();`,
    );
    ctx.body = page(
      'Signing in',
      `<h1>Signing in…</h1><p class="muted">This page returns the sign-in result to ${escapeHtml(targetOrigin)}.</p>`,
      `<script>${script}</script>`,
    );
  };
}

type Next = (error?: unknown) => void;
type RawMiddleware = (req: IncomingMessage, res: ServerResponse, next: Next) => void;

/**
 * CORS for the provider's endpoints (token, keys, userinfo, revoke, introspect, discovery), limited to
 * PUBLIC_URL and TRUSTED_ORIGINS. oidc-provider would open keys and discovery to every origin; headers are
 * set here on the raw response, which makes the provider skip its own CORS handling.
 */
export function providerCors(allowedOrigins: readonly string[]): RawMiddleware {
  const allowed = new Set(allowedOrigins);
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (!origin) return next();
    res.setHeader('Vary', 'Origin');
    const preflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    if (!allowed.has(origin)) {
      // Drop any CORS header the provider would add later: an unlisted origin gets none.
      const setHeader = res.setHeader.bind(res);
      res.setHeader = ((name: string, value: number | string | readonly string[]) =>
        name.toLowerCase().startsWith('access-control-')
          ? res
          : setHeader(name, value)) as typeof res.setHeader;
      if (preflight) {
        res.statusCode = 204;
        res.end();
        return;
      }
      return next();
    }
    res.setHeader('Access-Control-Allow-Origin', origin);
    res.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate');
    if (preflight) {
      res.statusCode = 204;
      res.setHeader('Access-Control-Allow-Methods', 'GET,POST');
      // okta-auth-js adds X-Okta-User-Agent-Extended; echo what the browser asks for, as Okta does.
      res.setHeader(
        'Access-Control-Allow-Headers',
        req.headers['access-control-request-headers'] ?? 'Authorization',
      );
      res.setHeader('Access-Control-Max-Age', '3600');
      res.end();
      return;
    }
    next();
  };
}

const MAX_REVOKE_BODY = 56 * 1024;

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // The rest is read and dropped, not destroyed: a reset connection loses the 413 answer.
        reject(new RevokeRequestError(413, 'invalid_request', 'the request body is too large'));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** A /v1/revoke request refused before the provider sees it; answered in OAuth's error shape. */
export class RevokeRequestError extends Error {
  override readonly name = 'RevokeRequestError';
  constructor(
    readonly statusCode: number,
    readonly error: 'invalid_client' | 'invalid_request',
    readonly description: string,
  ) {
    super(description);
  }
}

/** The client id in `Authorization: Basic base64(clientId)` (okta-auth-js's form, no colon, no secret). */
function basicClientId(header: string): string | undefined {
  const encoded = header.slice(6).trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new RevokeRequestError(
      400,
      'invalid_client',
      'the Authorization header is not valid Basic credentials',
    );
  }
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  // With a colon it is a client id and secret: the provider authenticates those itself.
  if (decoded === '' || decoded.includes(':')) return undefined;
  try {
    return decodeURIComponent(decoded);
  } catch {
    throw new RevokeRequestError(
      400,
      'invalid_client',
      'the Authorization header is not valid Basic credentials',
    );
  }
}

/**
 * Reads a /v1/revoke request's form and hands the provider a fresh request carrying it, so the portal can act
 * on the token too (an access token is a JWT the provider does not store: see oidc/revocation.ts).
 *
 * okta-auth-js's signOut() revokes tokens with `Authorization: Basic base64(clientId)` (no colon, no secret).
 * oidc-provider answers 400 to that, and signOut then stops before the logout redirect. A public client
 * authenticates with `client_id` in the body, so it moves there and the header is dropped. A header that is not
 * valid Basic credentials is refused with 400 invalid_client (RevokeRequestError).
 */
export async function readRevokeRequest(
  req: IncomingMessage,
): Promise<{ request: IncomingMessage; form: URLSearchParams }> {
  const header = req.headers.authorization;
  const clientId = header && /^basic /i.test(header) ? basicClientId(header) : undefined;

  const form = new URLSearchParams((await readBody(req, MAX_REVOKE_BODY)).toString('utf8'));
  if (clientId !== undefined && !form.has('client_id')) form.set('client_id', clientId);
  const body = Buffer.from(form.toString(), 'utf8');

  // The original stream is consumed; the provider reads the body from this one instead.
  const rewritten = new IncomingMessage(req.socket);
  rewritten.method = req.method;
  rewritten.url = req.url;
  rewritten.httpVersion = req.httpVersion;
  rewritten.httpVersionMajor = req.httpVersionMajor;
  rewritten.httpVersionMinor = req.httpVersionMinor;
  const { authorization, ...headers } = req.headers;
  rewritten.headers = {
    ...headers,
    ...(clientId === undefined && authorization !== undefined ? { authorization } : {}),
    'content-type': 'application/x-www-form-urlencoded',
    'content-length': String(body.length),
  };
  // The whole body is here: without `complete`, ending this stream would count as an aborted request and
  // destroy the shared socket.
  rewritten.complete = true;
  rewritten.push(body);
  rewritten.push(null);
  return { request: rewritten, form };
}

/**
 * Okta's session API. okta-auth-js may call `{issuer origin}/api/v1/sessions/me` (with credentials) to look
 * for an Okta session; this server has none to offer, and Okta's own "not found" makes the SDK treat the
 * session as absent instead of throwing.
 */
export async function oktaSessionsRoutes(app: FastifyInstance): Promise<void> {
  const notFound = {
    errorCode: 'E0000007',
    errorSummary: 'Not found: Resource not found: me (Session)',
    errorLink: 'E0000007',
    errorCauses: [] as unknown[],
  };
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/v1/sessions/me',
      config: { public: true },
      handler: async (_request, reply) =>
        reply.code(404).send({ ...notFound, errorId: `oae${randomUUID().replace(/-/g, '').slice(0, 19)}` }),
    });
  }
}
