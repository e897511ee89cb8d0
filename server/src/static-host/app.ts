import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import cors from '@fastify/cors';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { cacheControlFor } from '../routes/web.js';

export interface StaticHostOptions {
  /**
   * The folder to serve: a remote's build output (remoteEntry.js, mf-manifest.json, hashed chunks), or a folder of
   * such builds side by side, as a CDN keeps versions (remote-profile/1.1.0/remoteEntry.js).
   */
  root: string;
  /** Pages allowed to load these files with CORS (the portal and the pages that embed a remote). */
  allowedOrigins: readonly string[];
  logger?: FastifyServerOptions['logger'];
}

/** The remoteEntry.js files in a folder and up to `depth` levels below it, as paths relative to it. */
export function remoteEntriesIn(root: string, depth = 3): string[] {
  if (existsSync(path.join(root, 'remoteEntry.js'))) return ['remoteEntry.js'];
  if (depth === 0 || !existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) =>
      remoteEntriesIn(path.join(root, entry.name), depth - 1).map((file) => `${entry.name}/${file}`),
    );
}

/**
 * A static host for a remote's builds, as a CDN would serve them: unhashed entry files no-cache, hashed chunks
 * immutable, CORS for the pages that load them. Builds keep working from any path (publicPath 'auto').
 */
export async function buildStaticHost({
  root,
  allowedOrigins,
  logger = false,
}: StaticHostOptions): Promise<FastifyInstance> {
  if (remoteEntriesIn(root).length === 0) {
    throw new Error(`${root} holds no remoteEntry.js: build the remote first (pnpm build).`);
  }
  // A remote's build has an index.html: its standalone page (sign-in, then the page without the shell).
  const hasPage = existsSync(path.join(root, 'index.html'));
  const app = Fastify({ logger });
  await app.register(cors, { origin: [...allowedOrigins], methods: ['GET', 'HEAD'] });
  await app.register(fastifyStatic, {
    root,
    index: hasPage ? ['index.html'] : false,
    cacheControl: false,
    setHeaders: (res, filePath) => {
      res.setHeader('Cache-Control', cacheControlFor(filePath));
      res.setHeader('X-Content-Type-Options', 'nosniff');
      // Remotes are loaded cross-origin by the portal's pages.
      res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    },
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.setNotFoundHandler(async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '';
    // The standalone page routes on its own (/login/callback is where the identity provider returns).
    const isPage =
      (request.method === 'GET' || request.method === 'HEAD') && !/\.[A-Za-z0-9]+$/.test(pathname);
    if (hasPage && isPage) return reply.sendFile('index.html');
    return reply.code(404).send({ error: `Not found: ${request.method} ${pathname}` });
  });
  await app.ready();
  return app;
}
