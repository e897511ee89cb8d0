/**
 * The embedded provider's edge: what every request under the issuer path goes through before oidc-provider
 * (mounted with middie) sees it.
 *
 * - The provider builds every absolute URL it sends (discovery's jwks_uri, token endpoint, issuer-relative
 *   redirects) from the request's Host / X-Forwarded-Host / X-Forwarded-Proto (Koa's ctx.href). Those are the
 *   client's to choose, so they are pinned to PUBLIC_URL here, and X-Forwarded-For is replaced by the address
 *   Fastify trusts (TRUST_PROXY). oidc-provider 8.8.1 builds discovery per request and keeps no copy of it, so
 *   with the host pinned its answer is the same whatever a client sends, and no cache can store a poisoned one.
 * - New authorization requests and token requests are limited per client address (AUTHORIZE_RATE_LIMIT,
 *   TOKEN_RATE_LIMIT): each authorization request stores an interaction for 15 minutes. The counts are in the
 *   database (throttles/request-windows.ts), so N instances admit the limit, not N times it; a count that cannot
 *   be stored is 503 with Retry-After, as below.
 * - `state` and `nonce` are stored with the interaction: longer than MAX_STATE_LENGTH, the request is refused
 *   (400 invalid_request) before the provider stores anything; so is an authorization request whose parameters
 *   are longer than MAX_AUTHORIZE_PARAMS_LENGTH in all.
 * - A storage failure inside the provider (busy, full, read-only database) is 503 with Retry-After, as on the
 *   API, instead of its 500 server_error (answerStorageErrorsWith503).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { FastifyBaseLogger } from 'fastify';
import type { AppConfig } from '../config/index.js';
import { storageUnavailableReason } from '../db/errors.js';
import { STORAGE_RETRY_AFTER_SECONDS, STORAGE_UNAVAILABLE_MESSAGE } from '../plugins/errors.js';
import { AddressLimiter, type RequestWindows } from '../throttles/request-windows.js';
import { escapeHtml, page } from './html.js';
import { providerCors } from './okta-compat.js';
import { OKTA_ROUTES } from './provider.js';

/** Longest `state` or `nonce` accepted (okta-auth-js sends 64 characters). */
export const MAX_STATE_LENGTH = 512;
/** Longest authorization request, all parameters together (query string or form body), in characters. */
export const MAX_AUTHORIZE_PARAMS_LENGTH = 4096;

type Next = (error?: unknown) => void;
/** middie hands middleware the raw request, with Fastify's `ip` (which honours TRUST_PROXY) copied onto it. */
type EdgeRequest = IncomingMessage & { ip?: string; body?: unknown };

/** Makes the request look as if it came straight to PUBLIC_URL, from the address Fastify trusts. */
function pinToPublicUrl(req: EdgeRequest, publicUrl: URL): void {
  req.headers.host = publicUrl.host;
  delete req.headers['x-forwarded-host'];
  delete req.headers.forwarded;
  req.headers['x-forwarded-proto'] = publicUrl.protocol.slice(0, -1);
  if (req.ip) req.headers['x-forwarded-for'] = req.ip;
  else delete req.headers['x-forwarded-for'];
}

function sendHtml(res: ServerResponse, status: number, title: string, message: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(page(title, `<h1>${escapeHtml(title)}</h1>\n<p role="alert">${escapeHtml(message)}</p>`));
}

/** The title of the page of a storage failure (the provider's own, answerStorageErrorsWith503, and the edge's). */
const UNAVAILABLE_TITLE = 'Try again in a moment';
/** The JSON of a storage failure, for the token endpoint's callers. */
const UNAVAILABLE_JSON = { error: 'temporarily_unavailable', error_description: STORAGE_UNAVAILABLE_MESSAGE };

/** The body, or undefined when it is longer than `limit` (the rest is then left unread). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      resolve(undefined);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The body of a request, left for the provider to read as if untouched; undefined when it is longer than
 * `limit`. With a Content-Length (every browser form post) the bytes are read and put back on the stream
 * (unshift, before it can end). Without one (chunked), the body is read and handed over as req.body, which
 * oidc-provider also accepts (with a one-time warning on the console).
 */
async function peekBody(req: EdgeRequest, limit: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers['content-length']);
  if (!Number.isSafeInteger(declared) || declared < 0) {
    const body = await readBody(req, limit);
    if (body) req.body = body;
    return body;
  }
  if (declared > limit) return undefined;
  if (declared === 0) return Buffer.alloc(0);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('readable', onReadable);
      req.off('end', onEnd);
      req.off('error', reject);
    };
    const onReadable = () => {
      let chunk: Buffer | null;
      // Never read past the declared length: a read at the end of the stream would schedule its 'end'.
      while (size < declared && (chunk = req.read() as Buffer | null) !== null) {
        chunks.push(chunk);
        size += chunk.length;
      }
      if (size < declared) return;
      stop();
      const body = Buffer.concat(chunks);
      req.unshift(body);
      resolve(body);
    };
    const onEnd = () => {
      stop();
      const body = Buffer.concat(chunks);
      req.body = body;
      resolve(body);
    };
    req.on('readable', onReadable);
    req.on('end', onEnd);
    req.on('error', reject);
  });
}

/** Why these authorization parameters are refused, or undefined when they are acceptable. */
export function authorizeParamsProblem(params: URLSearchParams, rawLength: number): string | undefined {
  if (rawLength > MAX_AUTHORIZE_PARAMS_LENGTH) {
    return `The sign-in request is too long (over ${MAX_AUTHORIZE_PARAMS_LENGTH} characters).`;
  }
  for (const name of ['state', 'nonce']) {
    if (params.getAll(name).some((value) => value.length > MAX_STATE_LENGTH)) {
      return `The sign-in request's ${name} is longer than ${MAX_STATE_LENGTH} characters.`;
    }
  }
  return undefined;
}

export interface ProviderEdgeOptions {
  /** The app's clock (ms since the epoch). */
  now: () => number;
  /** Where the per-address counts are kept (`Storage.requestWindows`). */
  windows: RequestWindows;
  log: FastifyBaseLogger;
}

/** The middleware, for `app.use(config.oidcMountPath, …)` before the provider's own. */
export function providerEdge(config: AppConfig, { now, windows, log }: ProviderEdgeOptions) {
  const publicUrl = new URL(config.PUBLIC_URL);
  const cors = providerCors(config.allowedOrigins);
  const authorizeLimiter = new AddressLimiter(windows, 'authorize', config.AUTHORIZE_RATE_LIMIT, now);
  const tokenLimiter = new AddressLimiter(windows, 'token', config.TOKEN_RATE_LIMIT, now);

  /**
   * The limiter's wait for this request's address; undefined when the count cannot be stored, after `unavailable`
   * answered. Fail closed: a request that cannot be counted is not let through (its authorization or token
   * would need the same database in the next step anyway).
   */
  async function waitOf(
    limiter: AddressLimiter,
    req: EdgeRequest,
    res: ServerResponse,
    unavailable: () => void,
  ): Promise<number | undefined> {
    try {
      return await limiter.hit(req.ip ?? '');
    } catch (error) {
      const reason = storageUnavailableReason(error);
      if (reason === undefined) throw error;
      log.warn({ reason }, 'storage unavailable: a per-address limit answered 503');
      res.setHeader('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS));
      unavailable();
      return undefined;
    }
  }

  const invalidRequest = (res: ServerResponse, problem: string) => {
    // A body may be left unread: do not keep the connection for another request.
    res.setHeader('Connection', 'close');
    sendHtml(res, 400, 'Sign-in problem', `invalid_request: ${problem}`);
  };

  async function guardAuthorize(req: EdgeRequest, res: ServerResponse, next: Next): Promise<void> {
    const retryAfter = await waitOf(authorizeLimiter, req, res, () =>
      sendHtml(res, 503, UNAVAILABLE_TITLE, STORAGE_UNAVAILABLE_MESSAGE),
    );
    if (retryAfter === undefined) return;
    if (retryAfter > 0) {
      res.setHeader('Retry-After', String(retryAfter));
      sendHtml(
        res,
        429,
        'Too many sign-in requests',
        `Too many sign-in requests from your network. Try again in ${retryAfter} seconds.`,
      );
      return;
    }
    const url = req.url ?? '/';
    const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
    let problem = authorizeParamsProblem(new URLSearchParams(query), query.length);
    if (!problem && req.method === 'POST') {
      const body = await peekBody(req, MAX_AUTHORIZE_PARAMS_LENGTH);
      problem =
        body === undefined
          ? authorizeParamsProblem(new URLSearchParams(), MAX_AUTHORIZE_PARAMS_LENGTH + 1)
          : authorizeParamsProblem(new URLSearchParams(body.toString('utf8')), body.length);
    }
    if (problem) return invalidRequest(res, problem);
    next();
  }

  async function guardToken(req: EdgeRequest, res: ServerResponse, next: Next): Promise<void> {
    const retryAfter = await waitOf(tokenLimiter, req, res, () =>
      cors(req, res, () => {
        res.statusCode = 503;
        res.setHeader('Content-Type', 'application/json; charset=utf-8');
        res.setHeader('Cache-Control', 'no-store');
        res.end(JSON.stringify(UNAVAILABLE_JSON));
      }),
    );
    if (retryAfter === undefined) return;
    if (retryAfter === 0) return next();
    // The SPA reads this answer cross-origin: it gets the provider's CORS headers like any other token answer.
    cors(req, res, () => {
      const description = `Too many token requests from this address. Try again in ${retryAfter} seconds.`;
      res.statusCode = 429;
      res.setHeader('Retry-After', String(retryAfter));
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Cache-Control', 'no-store');
      // OAuth's error shape (what okta-auth-js reads first) and Okta's rate-limit error (E0000047).
      res.end(
        JSON.stringify({
          error: 'temporarily_unavailable',
          error_description: description,
          errorCode: 'E0000047',
          errorSummary: 'API call exceeded rate limit due to too many requests.',
          errorLink: 'E0000047',
          errorId: `oae${randomUUID().replace(/-/g, '').slice(0, 19)}`,
          errorCauses: [],
        }),
      );
    });
  }

  return function providerEdgeMiddleware(req: EdgeRequest, res: ServerResponse, next: Next): void {
    pinToPublicUrl(req, publicUrl);
    // middie strips the mount path from req.url.
    const path = (req.url ?? '/').split('?')[0];
    if (path === OKTA_ROUTES.authorization && (req.method === 'GET' || req.method === 'POST')) {
      guardAuthorize(req, res, next).catch(next);
      return;
    }
    if (path === OKTA_ROUTES.token && req.method === 'POST') {
      guardToken(req, res, next).catch(next);
      return;
    }
    next();
  };
}

/**
 * The provider's own error handlers answer any unexpected error 500 `server_error` ("oops! something went
 * wrong"). A storage failure is marked when the provider reports it (`server_error` event) and, once its error
 * handler is done, answered 503 with Retry-After and the API's clear text: JSON for calls, a page for browsers.
 */
export function answerStorageErrorsWith503(provider: Provider): void {
  const unavailable = new WeakSet<object>();
  provider.on('server_error', (ctx: object, error: unknown) => {
    if (storageUnavailableReason(error) !== undefined) unavailable.add(ctx);
  });
  // provider.use runs around the provider's routes and their error handlers.
  provider.use(async (ctx, next) => {
    await next();
    if (!unavailable.has(ctx)) return;
    ctx.status = 503;
    ctx.set('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS));
    ctx.set('Cache-Control', 'no-store');
    if (ctx.response.is('html')) {
      ctx.body = page(
        UNAVAILABLE_TITLE,
        `<h1>${UNAVAILABLE_TITLE}</h1>\n<p role="alert">${escapeHtml(STORAGE_UNAVAILABLE_MESSAGE)}</p>`,
      );
    } else {
      ctx.body = UNAVAILABLE_JSON;
    }
  });
}
