import formbody from '@fastify/formbody';
import type { ServerResponse } from 'node:http';
import type { HelmetOptions } from 'helmet';
import middie from '@fastify/middie';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config/index.js';
import { apiHeadersWriter, HSTS } from '../http/api-headers.js';
import cors from '../http/cors.js';
import { precomputedSecurityHeaders } from '../http/security-headers.js';
import { LiveReleaseOrigins } from '../releases/live-origins.js';

/**
 * Origins the shell loads code from: the remotes file as it is now, the releases live now (issue 23: every stable,
 * canary and fallback entry, releases/live-origins.ts), plus the portal's other trusted origins (remote dev
 * harnesses, embedding pages). Read per response, so a remote moved to a new origin is allowed at once.
 */
export function remoteOrigins(config: AppConfig, released: LiveReleaseOrigins = NO_RELEASES): string[] {
  const remotes = config.currentRemotes();
  const releasedOrigins = released.get();
  // Every response asks: compute once per version of the remotes file and of the live releases.
  let byReleased = originsByRemotes.get(remotes);
  if (!byReleased) {
    byReleased = new WeakMap();
    originsByRemotes.set(remotes, byReleased);
  }
  let origins = byReleased.get(releasedOrigins);
  if (!origins) {
    const entries = Object.values(remotes.remotes).map((remote) => new URL(remote.entry).origin);
    origins = [...new Set([...entries, ...releasedOrigins, ...config.TRUSTED_ORIGINS])];
    byReleased.set(releasedOrigins, origins);
  }
  return origins;
}

const NO_RELEASES = new LiveReleaseOrigins();
const originsByRemotes = new WeakMap<object, WeakMap<readonly string[], string[]>>();

function remoteSources(config: AppConfig, released: LiveReleaseOrigins): string {
  const origins = remoteOrigins(config, released);
  let sources = sourcesByOrigins.get(origins);
  if (sources === undefined) {
    sources = origins.join(' ');
    sourcesByOrigins.set(origins, sources);
  }
  return sources;
}

const sourcesByOrigins = new WeakMap<string[], string>();

/** The Content-Security-Policy of every page this server sends (the shell and the provider's pages). */
type Directive = (string | (() => string))[];

/**
 * The trusted origins as websocket sources. Browsers do not let `http://host` in connect-src cover `ws://host`,
 * and the remotes' dev servers (pnpm dev) reload the page through a websocket on their own origin.
 */
export function trustedWebSockets(config: AppConfig): string[] {
  return config.TRUSTED_ORIGINS.map((origin) => origin.replace(/^http/, 'ws'));
}

export function cspDirectives(
  config: AppConfig,
  released: LiveReleaseOrigins = NO_RELEASES,
): Record<string, Directive | null> {
  const remotes = [() => remoteSources(config, released)];
  // In Okta mode the shell talks to the org (token exchange, silent-renew iframe) from the page.
  const idp = config.embedded ? [] : [new URL(config.settings.Domain).origin];
  const flagBase = /^https?:\/\//.test(config.settings.FlagBaseUrl)
    ? [new URL(config.settings.FlagBaseUrl).origin]
    : [];
  return {
    'default-src': ["'self'"],
    'base-uri': ["'self'"],
    'object-src': ["'none'"],
    'script-src': ["'self'", ...remotes],
    'script-src-attr': ["'none'"],
    // antd injects <style> elements at runtime.
    'style-src': ["'self'", "'unsafe-inline'", ...remotes],
    'img-src': ["'self'", 'data:', ...remotes, ...flagBase],
    'font-src': ["'self'", 'data:', ...remotes],
    'connect-src': ["'self'", ...remotes, ...trustedWebSockets(config), ...idp],
    'frame-src': ["'self'", ...idp],
    'frame-ancestors': ["'self'"],
    // Sign-in and sign-out forms post here, then redirect to the client's origin; browsers apply
    // form-action to those redirects too.
    'form-action': ["'self'", ...config.allowedOrigins],
    'upgrade-insecure-requests': config.PUBLIC_URL.startsWith('https:') ? [] : null,
  };
}

/** The security headers of the pages and files this server sends (helmet): CSP, HSTS behind https, nosniff... */
export function helmetOptions(config: AppConfig, released: LiveReleaseOrigins = NO_RELEASES) {
  const https = config.PUBLIC_URL.startsWith('https:');
  return {
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(config, released) },
    hsts: https ? HSTS : false,
    // Every portal origin is on one site (the shell at :3000, remotes at :3001...).
    crossOriginResourcePolicy: { policy: 'same-site' },
    // The okta popup flow needs window.opener; same-origin-allow-popups keeps it.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
  } satisfies HelmetOptions;
}

/** The JSON API's paths: /api and everything under it (a 404 there is a JSON answer too). */
export function isApiPath(url: string): boolean {
  return url.startsWith('/api') && (url.length === 4 || url[4] === '/' || url[4] === '?');
}

/** Writes the security headers of the answer to `url` on its raw response. */
export type SecurityHeaders = (url: string, response: ServerResponse) => void;

/**
 * The security headers of every answer, for a raw response (also answers sent before any hook runs): the API's
 * set under /api (http/api-headers.ts), the pages' (helmet's, with the CSP) everywhere else, which is the shell,
 * its files and the provider's sign-in pages.
 */
export function securityHeadersOf(
  config: AppConfig,
  released: LiveReleaseOrigins = NO_RELEASES,
): SecurityHeaders {
  // One version object per (remotes file, live release origins) pair: either changing recomputes the headers.
  const versions = new WeakMap<object, WeakMap<readonly string[], object>>();
  const versionOf = () => {
    const remotes = config.currentRemotes();
    const origins = released.get();
    let byOrigins = versions.get(remotes);
    if (!byOrigins) {
      byOrigins = new WeakMap();
      versions.set(remotes, byOrigins);
    }
    let version = byOrigins.get(origins);
    if (!version) {
      version = {};
      byOrigins.set(origins, version);
    }
    return version;
  };
  const page = precomputedSecurityHeaders(() => helmetOptions(config, released), versionOf);
  const api = apiHeadersWriter(config.PUBLIC_URL.startsWith('https:'));
  return (url, response) => {
    if (isApiPath(url)) api(response);
    else page(response);
  };
}

/** Third-party plugins, registered before the app's own: security headers, CORS, rate limits, forms, middleware. */
export default fp(
  async function externalPlugins(
    app: FastifyInstance,
    { config, releasedOrigins }: { config: AppConfig; releasedOrigins?: LiveReleaseOrigins },
  ) {
    // The API's set or the pages' (computed once per version of the remotes file, http/security-headers.ts).
    // Hooks run for every route, the 404 answer and the provider's pages (middie runs later in this hook list).
    const securityHeaders = securityHeadersOf(config, releasedOrigins);
    app.addHook('onRequest', (request, reply, done) => {
      securityHeaders(request.url, reply.raw);
      done();
    });

    // Exactly PUBLIC_URL and TRUSTED_ORIGINS, by one set lookup (http/cors.ts). The provider's paths do their own
    // CORS (src/oidc/okta-compat.ts). Any other origin gets no CORS header at all, not even a preflight's method
    // and header lists (its preflight is a 404), as on the provider's paths.
    await app.register(cors, {
      allowedOrigins: config.allowedOrigins,
      skipPrefix: `${config.oidcMountPath}/`,
      // okta-auth-js calls Okta's session API with credentials.
      credentialPaths: '/api/v1/sessions/',
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
      // Retry-After: a page on another origin shows the wait of a 429 or 503.
      exposedHeaders: ['WWW-Authenticate', 'Retry-After'],
      maxAgeSeconds: 600,
    });

    // Not global: only /api opts in (its flood guard, per instance: routes/api/index.ts). The provider's and the
    // sign-in form's per-address limits are counted in storage instead (throttles/request-windows.ts).
    // An answer under the limit carries no x-ratelimit-* count: no client reads it, and it was three headers on
    // every API answer. A refused one (429) still says when to come back (Retry-After) and what the limit is.
    await app.register(rateLimit, {
      global: false,
      addHeadersOnExceeding: {
        'x-ratelimit-limit': false,
        'x-ratelimit-remaining': false,
        'x-ratelimit-reset': false,
      },
    });
    await app.register(formbody);
    // The provider mounts its middleware with it (plugins/app/provider.ts). Only scopes made after that run it:
    // app.ts makes the API's before, so an API call pays nothing for it (test/api-hot-path.test.ts).
    await app.register(middie);
  },
  { name: 'external-plugins' },
);
