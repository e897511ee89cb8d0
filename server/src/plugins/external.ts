import formbody from '@fastify/formbody';
import type { ServerResponse } from 'node:http';
import type { HelmetOptions } from 'helmet';
import middie from '@fastify/middie';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { AppConfig } from '../config/index.js';
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

/** The security headers of every answer of this server (helmet): CSP, HSTS behind https, nosniff, referrer... */
export function helmetOptions(config: AppConfig, released: LiveReleaseOrigins = NO_RELEASES) {
  const https = config.PUBLIC_URL.startsWith('https:');
  return {
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(config, released) },
    hsts: https ? { maxAge: 31_536_000, includeSubDomains: true } : false,
    // Every portal origin is on one site (the shell at :3000, remotes at :3001...).
    crossOriginResourcePolicy: { policy: 'same-site' },
    // The okta popup flow needs window.opener; same-origin-allow-popups keeps it.
    crossOriginOpenerPolicy: { policy: 'same-origin-allow-popups' },
  } satisfies HelmetOptions;
}

/** The security headers of every answer, for a raw response (also answers sent before any hook runs). */
export function securityHeadersOf(
  config: AppConfig,
  released: LiveReleaseOrigins = NO_RELEASES,
): (response: ServerResponse) => void {
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
  return precomputedSecurityHeaders(() => helmetOptions(config, released), versionOf);
}

/** Third-party plugins, registered before the app's own: security headers, CORS, rate limits, forms, middleware. */
export default fp(
  async function externalPlugins(
    app: FastifyInstance,
    { config, releasedOrigins }: { config: AppConfig; releasedOrigins?: LiveReleaseOrigins },
  ) {
    // Computed once per version of the remotes file, not per request (http/security-headers.ts). Hooks run for
    // every route, the 404 answer and the provider's pages (middie runs later in this same hook list).
    const securityHeaders = securityHeadersOf(config, releasedOrigins);
    app.addHook('onRequest', (_request, reply, done) => {
      securityHeaders(reply.raw);
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
    await app.register(rateLimit, { global: false });
    await app.register(formbody);
    await app.register(middie);
  },
  { name: 'external-plugins' },
);
