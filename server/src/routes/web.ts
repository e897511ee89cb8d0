import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { API_ERROR_CODES, resolvedRemotesSchema, type ResolvedRemotes } from 'shared-auth/contract';
import { storageUnavailableReason } from '../db/errors.js';
import type { Database } from '../db/sql.js';
import { resolveRemotes } from '../releases/resolver.js';

const require = createRequire(import.meta.url);

// webpack's `[name].[contenthash].js` and chunk files like `123.0a1b2c3d.css`: the name changes with the content.
const HASHED_ASSET = /[.-][0-9a-f]{8,}\.(?:js|mjs|css)$/i;
const NO_CACHE = 'no-cache';
const IMMUTABLE = 'public, max-age=31536000, immutable';

// Paths that are never the shell's: the SPA fallback must not answer them with index.html.
const NOT_SHELL = /^\/(api|oauth2|flags|dev)(\/|$)|^\/remotes\.json$|^\/(healthz|readyz)$/;

export const SHELL_NOT_BUILT =
  "The portal's web app is not built yet. Run `pnpm build` (it builds the shell), then restart the server.";

export function cacheControlFor(filePath: string): string {
  return HASHED_ASSET.test(path.basename(filePath)) ? IMMUTABLE : NO_CACHE;
}

/** How long one readiness result is reused: a flood of probes costs at most one database write a second. */
export const READINESS_REUSE_MS = 1000;

type Readiness = { ready: true } | { ready: false; error: string };

/** Proves the database takes a write: one row of `meta`, in a write transaction. */
async function probeWrite(database: Database, now: number): Promise<Readiness> {
  try {
    await database.probeWrite(now);
    return { ready: true };
  } catch (error) {
    const reason = storageUnavailableReason(error);
    if (reason === undefined) throw error;
    const code = (error as { code?: unknown }).code;
    return {
      ready: false,
      error: `The database cannot be written: ${reason}${typeof code === 'string' ? ` (${code})` : ''}.`,
    };
  }
}

/** The shell's static build, its SPA fallback, flag images, the runtime remotes file, and the health check. */
export default fp(
  async function webRoutes(app: FastifyInstance) {
    const { config } = app;
    const shellBuilt = existsSync(path.join(config.SHELL_DIST, 'index.html'));
    if (!shellBuilt)
      app.log.warn({ SHELL_DIST: config.SHELL_DIST }, 'shell build not found: shell pages answer 503');

    if (shellBuilt) {
      await app.register(fastifyStatic, {
        root: config.SHELL_DIST,
        prefix: '/',
        index: ['index.html'],
        cacheControl: false,
        setHeaders: (res, filePath) => res.setHeader('Cache-Control', cacheControlFor(filePath)),
      });
    }

    // Served from the flag-icons package so the portal works offline. Their URLs never change content.
    const flagsRoot = path.join(path.dirname(require.resolve('flag-icons/package.json')), 'flags');
    if (statSync(flagsRoot).isDirectory()) {
      await app.register(fastifyStatic, {
        root: flagsRoot,
        prefix: '/flags/',
        decorateReply: false,
        index: false,
        cacheControl: true,
        maxAge: '365d',
        immutable: true,
      });
    }

    // The remotes the shell loads, read at runtime (never baked into its build): each remote's release for this
    // caller (issue 23: stable, or the canary for a signed-in holder in its bucket), else the remotes file's entry.
    // A bearer token only picks the canary bucket: a missing, invalid or expired one is an anonymous page (stable),
    // never a refusal. A database that cannot answer leaves the remotes file's set, so the shell still loads.
    app.get('/remotes.json', async (request, reply) => {
      reply.header('Cache-Control', 'no-store');
      const sub = await subOf(request.headers.authorization);
      let resolved: ResolvedRemotes;
      try {
        resolved = await app.resolveRemotes(sub);
      } catch (error) {
        if (storageUnavailableReason(error) === undefined) throw error;
        request.log.warn({ err: error }, 'remotes: releases not read, the remotes file answers');
        resolved = resolveRemotes({ channels: [], versions: [] }, config.currentRemotes(), undefined);
      }
      return resolvedRemotesSchema.parse(resolved);
    });

    /** The holder a bearer access token names, or undefined (no token, or one the API would refuse). */
    async function subOf(authorization: string | undefined): Promise<string | undefined> {
      const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
      if (!token) return undefined;
      try {
        return (await app.tokenVerifier.verify(token)).userId;
      } catch {
        return undefined;
      }
    }

    // Liveness: the process answers. No database at all: a database that is away is not a dead process, and
    // restarting the instance would not bring it back (readiness says so instead).
    app.get('/healthz', async (_request, reply) => {
      reply.header('Cache-Control', 'no-store');
      return { status: 'ok', mode: config.embedded ? 'embedded' : 'okta' };
    });

    // Readiness: the database takes a write now. One result serves every probe of the next second, and probes
    // that come while it is being found wait for that one (a flood while the lock is held starts one probe).
    let lastProbe: { at: number; result: Promise<Readiness> } | undefined;
    app.get('/readyz', async (_request, reply) => {
      const now = app.now();
      if (!lastProbe || now - lastProbe.at >= READINESS_REUSE_MS || now < lastProbe.at) {
        const probe = probeWrite(app.database, now);
        const started = { at: now, result: probe };
        lastProbe = started;
        // An unexpected error (a 500) is not reused: the next probe tries again.
        probe.catch(() => {
          if (lastProbe === started) lastProbe = undefined;
        });
      }
      reply.header('Cache-Control', 'no-store');
      const result = await lastProbe.result;
      if (result.ready) return { status: 'ready' };
      return reply.code(503).header('Retry-After', '1').send({ error: result.error });
    });

    app.setNotFoundHandler(async (request, reply) => {
      const pathname = request.url.split('?')[0] ?? '/';
      const isPage =
        (request.method === 'GET' || request.method === 'HEAD') &&
        !NOT_SHELL.test(pathname) &&
        !/\.[A-Za-z0-9]+$/.test(pathname);
      if (isPage) {
        // Client-side routes (/profile, /password, /security, /login/callback...) all load the shell.
        if (!shellBuilt) {
          return reply
            .code(503)
            .header('Cache-Control', 'no-store')
            .type('text/plain; charset=utf-8')
            .send(SHELL_NOT_BUILT);
        }
        reply.header('Cache-Control', NO_CACHE);
        return reply.sendFile('index.html');
      }
      return reply
        .code(404)
        .send({ error: `Not found: ${request.method} ${pathname}`, code: API_ERROR_CODES.notFound });
    });
  },
  { name: 'web', dependencies: ['storage'] },
);
