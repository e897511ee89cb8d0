import type { ServerResponse } from 'node:http';

/** Strict-Transport-Security behind an https PUBLIC_URL, for the pages (helmet's option) and the API alike. */
export const HSTS = { maxAge: 31_536_000, includeSubDomains: true } as const;

/**
 * The security headers of the JSON API's answers: the OWASP REST Security Cheat Sheet's set, not a page's.
 *
 * - `Cache-Control: no-store`: an answer holds one holder's data; no cache along the way may keep it.
 * - `Content-Security-Policy: frame-ancestors 'none'`: nobody frames an API answer. A JSON answer runs no script
 *   and loads nothing, so the page's policy (script, style, connect sources…) would only be bytes on every answer.
 * - `X-Content-Type-Options: nosniff`: JSON is never read as a script or a page.
 * - `Strict-Transport-Security` when PUBLIC_URL is https (the pages' value).
 * - No `X-Frame-Options`: `frame-ancestors` obsoletes it, and a browser that enforces both ignores X-Frame-Options
 *   (CSP, frame-ancestors: "Relation to X-Frame-Options"); every browser the portal runs in enforces frame-ancestors.
 * `Content-Type` is Fastify's (`application/json; charset=utf-8`); CORS is http/cors.ts's.
 */
export function apiSecurityHeaders(https: boolean): readonly (readonly [string, string])[] {
  const hsts = `max-age=${HSTS.maxAge}${HSTS.includeSubDomains ? '; includeSubDomains' : ''}`;
  return [
    ['Cache-Control', 'no-store'],
    ['Content-Security-Policy', "frame-ancestors 'none'"],
    ['X-Content-Type-Options', 'nosniff'],
    ...(https ? [['Strict-Transport-Security', hsts] as const] : []),
  ];
}

/** Writes the API's headers on a raw response (also one answered before any hook runs). */
export function apiHeadersWriter(https: boolean): (response: ServerResponse) => void {
  const headers = apiSecurityHeaders(https);
  return (response) => {
    for (const [name, value] of headers) response.setHeader(name, value);
  };
}
