import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

/**
 * CORS for the portal's origins, decided by one set lookup per request.
 *
 * It answers as @fastify/cors did with the portal's options (kept by test/security/headers-cors.test.ts), without
 * its per-request work: that plugin, given per-path options, normalised a new options object and spread it twice
 * on every request, about a sixth of an API call's time. Here every header value is built once.
 * - Every answer varies on Origin (also a refusal: caches must not reuse it for an allowed origin).
 * - No Origin, an origin outside `allowedOrigins`, or a path under `skipPrefix` (the provider does its own CORS)
 *   gets no CORS header at all, and its preflight is a 404, as an unknown path.
 * - `credentialPaths` (Okta's session API, which okta-auth-js calls with cookies) add Allow-Credentials.
 */
export interface CorsOptions {
  allowedOrigins: readonly string[];
  skipPrefix: string;
  credentialPaths: string;
  methods: readonly string[];
  exposedHeaders: readonly string[];
  maxAgeSeconds: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** This OPTIONS request is a preflight the CORS hook answered. */
    corsPreflight: boolean;
  }
}

function addVary(reply: FastifyReply, field: string): void {
  const current = reply.getHeader('Vary');
  if (current === undefined) {
    reply.header('Vary', field);
    return;
  }
  const text = String(current);
  if (text === '*') return;
  const fields = text.toLowerCase().split(',');
  if (!fields.some((name) => name.trim() === field.toLowerCase())) reply.header('Vary', `${text}, ${field}`);
}

export default fp(
  async function corsPlugin(app: FastifyInstance, options: CorsOptions) {
    const allowed = new Set(options.allowedOrigins);
    const methods = options.methods.join(', ');
    const exposed = options.exposedHeaders.join(', ');
    const maxAge = String(options.maxAgeSeconds);
    app.decorateRequest('corsPreflight', false);

    function preflight(request: FastifyRequest, reply: FastifyReply): void {
      const requestedMethod = request.headers['access-control-request-method'];
      if (requestedMethod === undefined) {
        reply.code(400).type('text/plain').send('Invalid Preflight Request');
        return;
      }
      request.corsPreflight = true;
      reply.header('Access-Control-Allow-Methods', methods);
      addVary(reply, 'Access-Control-Request-Headers');
      const requestedHeaders = request.headers['access-control-request-headers'];
      if (requestedHeaders !== undefined) reply.header('Access-Control-Allow-Headers', requestedHeaders);
      reply.header('Access-Control-Max-Age', maxAge);
      reply.code(204).header('Content-Length', '0').send();
    }

    app.addHook('onRequest', (request, reply, done) => {
      addVary(reply, 'Origin');
      const { origin } = request.headers;
      const url = request.url;
      // No Origin (a same-origin GET, a non-browser client) asks nothing of CORS: no header either.
      if (origin === undefined || !allowed.has(origin) || url.startsWith(options.skipPrefix)) {
        done();
        return;
      }
      reply.header('Access-Control-Allow-Origin', origin);
      if (url.startsWith(options.credentialPaths)) reply.header('Access-Control-Allow-Credentials', 'true');
      reply.header('Access-Control-Expose-Headers', exposed);
      if (request.method === 'OPTIONS') {
        preflight(request, reply);
        return;
      }
      done();
    });

    // Lets Fastify route preflights at all; the hook answers them. Any other OPTIONS request is unknown.
    app.options('*', { schema: { hide: true } }, (request, reply) => {
      if (!request.corsPreflight) {
        reply.callNotFound();
        return;
      }
      reply.send();
    });
  },
  { name: 'cors' },
);
