/**
 * The embedded provider's edge: what every request under the issuer path goes through before oidc-provider
 * (mounted with middie) sees it.
 *
 * - Only the paths served under the mount, written exactly (case, no trailing or doubled slash, no percent-encoding,
 *   no dot segment, no `;` parameter, origin-form), go further; anything else is 404 here. The provider's router
 *   (@koa/router over path-to-regexp 6) ignores case and a trailing slash, and middie matches the mount path
 *   ignoring case and after percent-decoding, so `/v1/Authorize`, `/v1/token/` or `/OAUTH2/default/...` would
 *   otherwise be served past the limits and caps below, which are matched on these exact paths.
 * - The provider builds every absolute URL it sends (discovery's jwks_uri, token endpoint, issuer-relative
 *   redirects) from the request's Host / X-Forwarded-Host / X-Forwarded-Proto (Koa's ctx.href). Those are the
 *   client's to choose, so they are pinned to PUBLIC_URL here, and X-Forwarded-For is replaced by the address
 *   Fastify trusts (TRUST_PROXY). oidc-provider 8.8.1 builds discovery per request and keeps no copy of it, so
 *   with the host pinned its answer is the same whatever a client sends, and no cache can store a poisoned one.
 * - New authorization requests and token requests are limited per client (AUTHORIZE_RATE_LIMIT, TOKEN_RATE_LIMIT;
 *   a client is an IPv4 address or an IPv6 /64, throttles/client-network.ts): each authorization request stores an
 *   interaction for 15 minutes. The counts are in the database (throttles/request-windows.ts), so N instances
 *   admit the limit, not N times it; a count that cannot be stored is 503 with Retry-After, as below.
 * - Stored interactions are bounded per client (INTERACTIONS_PER_CLIENT per 15 minutes: 429 with Retry-After) and
 *   in total (MAX_LIVE_INTERACTIONS, counted in the database: 503 with Retry-After), so neither one client nor many
 *   can fill the disk; a refused request stores nothing.
 * - `state` and `nonce` are stored with the interaction: longer than MAX_STATE_LENGTH, the request is refused
 *   (400 invalid_request) before the provider stores anything; so is an authorization request whose parameters
 *   are longer than MAX_AUTHORIZE_PARAMS_LENGTH in all.
 * - A body over MAX_PROVIDER_BODY_BYTES on the provider's other POST endpoints (token, revoke, introspect, logout)
 *   is 413 in OAuth's error shape, answered without reading it; the connection is kept and the rest of the body
 *   is drained by Node, so the client reads the answer instead of a reset.
 * - A storage failure inside the provider (busy, full, read-only database) is 503 with Retry-After, as on the
 *   API, instead of its 500 server_error (answerStorageErrorsWith503).
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import type { FastifyBaseLogger } from 'fastify';
import type { AppConfig } from '../config/index.js';
import { storageUnavailableReason } from '../db/errors.js';
import { STORAGE_RETRY_AFTER_SECONDS, STORAGE_UNAVAILABLE_MESSAGE } from '../http/storage-unavailable.js';
import { clientNetworkOf } from '../throttles/client-network.js';
import type { RequestWindows } from '../storage/request-windows.js';
import { AddressLimiter } from '../throttles/request-windows.js';
import { escapeHtml, page } from './html.js';
import { providerCors } from './okta-compat.js';
import { INTERACTION_PATH, OKTA_ROUTES } from './provider.js';
import { RESET_PATH, RESET_SUBPATHS } from './interactions/reset-flow.js';

/** Longest `state` or `nonce` accepted (okta-auth-js sends 64 characters). */
export const MAX_STATE_LENGTH = 512;
/** Longest authorization request, all parameters together (query string or form body), in characters. */
export const MAX_AUTHORIZE_PARAMS_LENGTH = 4096;
/** Largest body of the provider's other POST endpoints, as the app's own bodyLimit (a token request is < 2 KiB). */
export const MAX_PROVIDER_BODY_BYTES = 16 * 1024;

/*
 * Bounds on stored interactions. An interaction row of the largest request the caps let through (4096 characters
 * of parameters) takes at most INTERACTION_ROW_BYTES on disk (its sealed payload is about 9.7 KiB: measured in
 * test/provider-edge-paths.test.ts, with 1 KiB left for the row's and its index entries' own bytes). Each lives
 * 15 minutes and is deleted at most 10 minutes after that (plugins/app/provider.ts).
 * - Per client: 300 new authorization requests per 15-minute window (fixed from its first request), so at most
 *   2 × 300 = 600 live (two adjacent windows) × 12 KiB ≈ 7 MiB per client. A person signs in a few times a day;
 *   an office behind one address still gets 20 new sign-ins a minute.
 * - In total: 10,000 live interactions (11 sign-ins started every second for 15 minutes, far above this portal's
 *   load), so at most 10,000 × 12 KiB ≈ 117 MiB live, and with the expired ones not yet deleted (10 more minutes
 *   of them) ≤ 10,000 × 25/15 × 12 KiB ≈ 195 MiB. Reaching it refuses new sign-ins (503) until interactions
 *   expire; the API, signed-in sessions and their token refreshes keep working.
 */
/** The most an interaction row takes on disk, in bytes (the arithmetic above). */
export const INTERACTION_ROW_BYTES = 12 * 1024;
/** New authorization requests (each may store an interaction) per client per INTERACTION_WINDOW_MS. */
export const INTERACTIONS_PER_CLIENT = 300;
/** The interactions' lifetime (oidc/provider.ts ttl.Interaction): the per-client window. */
export const INTERACTION_WINDOW_MS = 15 * 60 * 1000;
/** Live interactions in the database (every instance) beyond which new authorization requests get 503. */
export const MAX_LIVE_INTERACTIONS = 10_000;
/** Retry-After of that 503: interactions expire continuously, so a minute later there is room again. */
const INTERACTIONS_FULL_RETRY_AFTER_SECONDS = 60;

/** The discovery document's path under the mount. */
const DISCOVERY_PATH = '/.well-known/openid-configuration';
/** An interaction uid (nanoid: 21 of [A-Za-z0-9_-]) or a sign-in step's name, as one path segment. */
const SEGMENT = '[A-Za-z0-9_-]{1,64}';
/** Every path served under the mount, exactly: the provider's routes and the Fastify routes (pages, userinfo). */
const KNOWN_PATHS: ReadonlySet<string> = new Set([
  ...Object.values(OKTA_ROUTES),
  DISCOVERY_PATH,
  `${OKTA_ROUTES.end_session}/confirm`,
  `${OKTA_ROUTES.end_session}/success`,
]);
const KNOWN_PATTERNS: readonly RegExp[] = [
  // The provider resuming an authorization request after its interaction.
  new RegExp(`^${OKTA_ROUTES.authorization}/${SEGMENT}$`),
  // The sign-in pages (oidc/interactions/routes.ts): GET /interaction/:uid, POST /interaction/:uid/:step.
  new RegExp(`^${INTERACTION_PATH}/${SEGMENT}(?:/${SEGMENT})?$`),
  // "Forgot password" (oidc/interactions/reset-routes.ts): the request form and the paths below it.
  new RegExp(`^${RESET_PATH}(?:/(?:${RESET_SUBPATHS.map((sub) => sub.replace('.', '\\.')).join('|')}))?$`),
];
/** The provider's POST endpoints whose body the edge bounds (authorize has its own cap, below). */
const BODY_BOUNDED_PATHS: ReadonlySet<string> = new Set([
  OKTA_ROUTES.token,
  OKTA_ROUTES.revocation,
  OKTA_ROUTES.introspection,
  OKTA_ROUTES.end_session,
  `${OKTA_ROUTES.end_session}/confirm`,
]);

/** Whether `path` (after the mount, without the query) is one served under the mount, written exactly. */
export function isKnownProviderPath(path: string): boolean {
  return KNOWN_PATHS.has(path) || KNOWN_PATTERNS.some((pattern) => pattern.test(path));
}

type Next = (error?: unknown) => void;
/** middie hands middleware the raw request, with Fastify's `ip` (which honours TRUST_PROXY) copied onto it. */
type EdgeRequest = IncomingMessage & { ip?: string; body?: unknown; originalUrl?: string };

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
  /** How many unexpired interactions the database holds, every instance's (`ProviderStore.countLiveInteractions`). */
  liveInteractions: () => Promise<number>;
  log: FastifyBaseLogger;
}

function sendJson(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Cache-Control', 'no-store');
  res.end(JSON.stringify(body));
}

/** The path the client wrote and the path middie hands on (mount stripped), both without the query. */
function pathsOf(req: EdgeRequest): { raw: string; stripped: string } {
  const pathOf = (url: string) => url.split('?')[0] ?? '';
  return { raw: pathOf(req.originalUrl ?? req.url ?? '/'), stripped: pathOf(req.url ?? '/') };
}

/** The middleware, for `app.use(config.oidcMountPath, …)` before the provider's own. */
export function providerEdge(
  config: AppConfig,
  { now, windows, liveInteractions, log }: ProviderEdgeOptions,
) {
  const publicUrl = new URL(config.PUBLIC_URL);
  const mount = config.oidcMountPath;
  const cors = providerCors(config.allowedOrigins);
  const authorizeLimiter = new AddressLimiter(windows, 'authorize', config.AUTHORIZE_RATE_LIMIT, now);
  const tokenLimiter = new AddressLimiter(windows, 'token', config.TOKEN_RATE_LIMIT, now);
  const interactionLimiter = new AddressLimiter(
    windows,
    'interactions',
    INTERACTIONS_PER_CLIENT,
    now,
    INTERACTION_WINDOW_MS,
  );

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
      return await limiter.hit(clientNetworkOf(req.ip ?? ''));
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
    if (!(await roomForInteraction(req, res))) return;
    next();
  }

  /**
   * Whether one more interaction may be stored: under MAX_LIVE_INTERACTIONS in total (else 503), then under
   * INTERACTIONS_PER_CLIENT for this client (else 429). Checked after the caps, so a refused request does not
   * count. Concurrent requests may each see the last free place: the total can pass the bound by the number of
   * authorization requests in flight at that moment, which the per-client limits keep small.
   */
  async function roomForInteraction(req: EdgeRequest, res: ServerResponse): Promise<boolean> {
    let live: number;
    try {
      live = await liveInteractions();
    } catch (error) {
      const reason = storageUnavailableReason(error);
      if (reason === undefined) throw error;
      log.warn({ reason }, 'storage unavailable: the interactions could not be counted, answered 503');
      res.setHeader('Retry-After', String(STORAGE_RETRY_AFTER_SECONDS));
      sendHtml(res, 503, UNAVAILABLE_TITLE, STORAGE_UNAVAILABLE_MESSAGE);
      return false;
    }
    if (live >= MAX_LIVE_INTERACTIONS) {
      log.warn({ live }, 'too many sign-ins in progress: a new authorization request answered 503');
      res.setHeader('Retry-After', String(INTERACTIONS_FULL_RETRY_AFTER_SECONDS));
      sendHtml(
        res,
        503,
        'Too many sign-ins in progress',
        'Too many sign-ins are in progress on this service right now. Try again in a minute.',
      );
      return false;
    }
    const retryAfter = await waitOf(interactionLimiter, req, res, () =>
      sendHtml(res, 503, UNAVAILABLE_TITLE, STORAGE_UNAVAILABLE_MESSAGE),
    );
    if (retryAfter === undefined) return false;
    if (retryAfter === 0) return true;
    res.setHeader('Retry-After', String(retryAfter));
    const minutes = Math.ceil(retryAfter / 60);
    sendHtml(
      res,
      429,
      'Too many sign-in requests',
      `Too many sign-ins were started from your network. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
    );
    return false;
  }

  /** Whether the body is small enough; else 413 is answered (the body is left to Node, which drains it). */
  async function boundedBody(req: EdgeRequest, res: ServerResponse, path: string): Promise<boolean> {
    const declared = req.headers['content-length'];
    const tooLarge =
      declared !== undefined
        ? Number(declared) > MAX_PROVIDER_BODY_BYTES
        : // Without a length (chunked), read it up to the bound; /v1/revoke reads its own (okta-compat.ts).
          path !== OKTA_ROUTES.revocation && (await peekBody(req, MAX_PROVIDER_BODY_BYTES)) === undefined;
    if (!tooLarge) return true;
    // Not `Connection: close`: closing with the body unread would reset the connection before the client reads
    // this answer. Node discards the rest of the body and keeps the connection (REQUEST_TIMEOUT_MS bounds it).
    cors(req, res, () =>
      sendJson(res, 413, {
        error: 'invalid_request',
        error_description: `The request body is too large (over ${MAX_PROVIDER_BODY_BYTES} bytes).`,
      }),
    );
    return false;
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
    // middie strips the mount path from req.url (and keeps the client's in originalUrl); it matched the mount
    // ignoring case and percent-encoding, so both must be the exact paths.
    const { raw, stripped } = pathsOf(req);
    if (raw !== `${mount}${stripped}` || !isKnownProviderPath(stripped)) {
      sendJson(res, 404, {
        error: 'invalid_request',
        error_description: 'unrecognized route (paths under the issuer are matched exactly)',
      });
      return;
    }
    pinToPublicUrl(req, publicUrl);
    // HEAD runs the provider's GET route: it is a new authorization request too.
    const method = req.method ?? '';
    if (stripped === OKTA_ROUTES.authorization && ['GET', 'HEAD', 'POST'].includes(method)) {
      guardAuthorize(req, res, next).catch(next);
      return;
    }
    if (req.method === 'POST' && BODY_BOUNDED_PATHS.has(stripped)) {
      boundedBody(req, res, stripped)
        .then((ok) => {
          if (!ok) return;
          if (stripped === OKTA_ROUTES.token) return guardToken(req, res, next);
          next();
        })
        .catch(next);
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
