import { existsSync } from 'node:fs';
import path from 'node:path';
import cors from '@fastify/cors';
import fastifyStatic from '@fastify/static';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { cacheControlFor } from '../routes/web.js';

export interface StaticHostOptions {
  /** The folder to serve: a remote's build output (remoteEntry.js, mf-manifest.json, hashed chunks). */
  root: string;
  /** Pages allowed to load these files with CORS (the portal and the pages that embed a remote). */
  allowedOrigins: readonly string[];
  logger?: FastifyServerOptions['logger'];
}

/**
 * A static host for one remote's build, as a CDN would serve it: unhashed entry files no-cache, hashed chunks
 * immutable, CORS for the pages that load them.
 */
export async function buildStaticHost({
  root,
  allowedOrigins,
  logger = false,
}: StaticHostOptions): Promise<FastifyInstance> {
  if (!existsSync(path.join(root, 'remoteEntry.js'))) {
    throw new Error(`${root} holds no remoteEntry.js: build the remote first (pnpm build).`);
  }
  const app = Fastify({ logger });
  await app.register(cors, { origin: [...allowedOrigins], methods: ['GET', 'HEAD'] });
  await app.register(fastifyStatic, {
    root,
    index: false,
    cacheControl: false,
    setHeaders: (res, filePath) => {
      res.setHeader('Cache-Control', cacheControlFor(filePath));
      res.setHeader('X-Content-Type-Options', 'nosniff');
      // Remotes are loaded cross-origin by the portal's pages.
      res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    },
  });
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).send({ error: `Not found: ${request.method} ${request.url.split('?')[0] ?? ''}` }),
  );
  await app.ready();
  return app;
}
