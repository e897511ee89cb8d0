#!/usr/bin/env node
// Serves the examples as an integrator's own site would: http://localhost:3100/ is a plain HTML page that embeds
// the Security remote (examples/embed-security), and http://localhost:3100/activity/ one that embeds the Devices &
// activity remote (examples/embed-activity). Their scripts come from node_modules as they are published: the
// Module Federation runtime as browser ES modules (through the pages' import map) and okta-auth-js's browser
// build. Nothing is bundled here.
//
//   node examples/host.mjs [--port 3100] [--api http://localhost:3000]
//     [--remote-entry http://localhost:3003/remoteEntry.js] [--activity-entry http://localhost:3004/remoteEntry.js]
import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';

const here = import.meta.dirname;
const require = createRequire(import.meta.url);

/** The folder a package's file resolves into (its dist), found from the package that depends on it. */
function distOf(name, from = require) {
  return path.dirname(from.resolve(name));
}

/** The MF runtime and the three packages it imports, as published (ES modules, one file per source module). */
export function runtimePackages() {
  const runtimeDist = distOf('@module-federation/runtime');
  const fromRuntime = createRequire(realpathSync(path.join(runtimeDist, 'index.js')));
  const coreDist = distOf('@module-federation/runtime-core', fromRuntime);
  const fromCore = createRequire(realpathSync(path.join(coreDist, 'index.js')));
  return {
    runtime: runtimeDist,
    'runtime-core': coreDist,
    sdk: distOf('@module-federation/sdk', fromCore),
    'error-codes': distOf('@module-federation/error-codes', fromCore),
  };
}

/** okta-auth-js's self-contained browser build of its core (defines window.OktaAuth). */
export function oktaBrowserBuild() {
  const packageDir = path.dirname(require.resolve('@okta/okta-auth-js/package.json'));
  return path.join(packageDir, 'umd', 'core.js');
}

const sha256 = (text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The embedding page's Content-Security-Policy: what an integrator's page needs for an embedded remote.
 * - script-src: the remote's origin (remoteEntry.js and its chunks are script elements), plus this page's inline
 *   import map by its hash;
 * - connect-src: the account API and the identity provider (token, keys, userinfo, revoke), and the remote's
 *   origin;
 * - style-src 'unsafe-inline': antd injects <style> elements at run time;
 * - img-src: data: (antd's icons and the QR code) and the API origin (flag images).
 */
export function embedPageCsp({ apiOrigin, remoteOrigin, idpOrigin, importMap }) {
  const origins = (...list) => [...new Set(list)].join(' ');
  return [
    "default-src 'self'",
    "base-uri 'self'",
    "object-src 'none'",
    `script-src 'self' ${remoteOrigin} ${sha256(importMap)}`,
    "script-src-attr 'none'",
    `connect-src 'self' ${origins(apiOrigin, idpOrigin, remoteOrigin)}`,
    `style-src 'self' 'unsafe-inline' ${remoteOrigin}`,
    `img-src 'self' data: ${origins(apiOrigin, remoteOrigin)}`,
    `font-src 'self' data: ${remoteOrigin}`,
    // okta-auth-js renews through a hidden iframe when it has no refresh token.
    `frame-src ${idpOrigin}`,
    "frame-ancestors 'none'",
    `form-action 'self' ${idpOrigin}`,
  ].join('; ');
}

/** The page of an example folder with this host's settings written into its config block. */
export function embedPage({ apiBaseUrl, remoteEntry, folder = 'embed-security' }) {
  const template = readFileSync(path.join(here, folder, 'index.html'), 'utf8');
  const html = template.replace(
    /(<script type="application\/json" id="embed-config">)[\s\S]*?(<\/script>)/,
    `$1\n      ${JSON.stringify({ apiBaseUrl, remoteEntry })}\n    $2`,
  );
  const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(html)?.[1];
  if (importMap === undefined) throw new Error(`${folder}/index.html has no import map`);
  return { html, importMap };
}

/** An example page and its Content-Security-Policy (each page allows only the remote it embeds). */
function servedPage({ apiBaseUrl, remoteEntry, folder, idpOrigin }) {
  const { html, importMap } = embedPage({ apiBaseUrl, remoteEntry, folder });
  const csp = embedPageCsp({
    apiOrigin: new URL(apiBaseUrl).origin,
    remoteOrigin: new URL(remoteEntry).origin,
    idpOrigin,
    importMap,
  });
  return async (_request, reply) =>
    reply
      .header('Cache-Control', 'no-cache')
      .header('Content-Security-Policy', csp)
      .header('X-Content-Type-Options', 'nosniff')
      .type('text/html; charset=utf-8')
      .send(html);
}

export async function buildExamplesHost({
  apiBaseUrl,
  remoteEntry,
  activityEntry = 'http://localhost:3004/remoteEntry.js',
  idpOrigin = new URL(apiBaseUrl).origin,
}) {
  const app = Fastify({ logger: { level: 'warn' } });
  const noCache = (res) => res.setHeader('Cache-Control', 'no-cache');

  for (const [name, root] of Object.entries(runtimePackages())) {
    await app.register(fastifyStatic, {
      root,
      prefix: `/vendor/mf/${name}/`,
      decorateReply: false,
      index: false,
      cacheControl: false,
      setHeaders: noCache,
      allowedPath: (pathname) => /\.m?js$/.test(pathname),
    });
  }
  // The pages' own files (read per request, so an edit shows on reload), the site's one stylesheet, and
  // okta-auth-js's browser build.
  const files = {
    '/embed.js': [path.join(here, 'embed-security', 'embed.js'), 'text/javascript'],
    '/activity/embed.js': [path.join(here, 'embed-activity', 'embed.js'), 'text/javascript'],
    '/example.css': [path.join(here, 'embed-security', 'example.css'), 'text/css'],
    '/vendor/okta-auth-js/core.js': [oktaBrowserBuild(), 'text/javascript'],
  };
  for (const [url, [file, type]] of Object.entries(files)) {
    app.get(url, async (_request, reply) =>
      reply.header('Cache-Control', 'no-cache').type(`${type}; charset=utf-8`).send(readFileSync(file)),
    );
  }

  // The Security page, and the same page as the site's one sign-in return address (it sends a sign-in started on
  // /activity/ back there).
  const page = servedPage({ apiBaseUrl, remoteEntry, folder: 'embed-security', idpOrigin });
  app.get('/', page);
  app.get('/login/callback', page);
  // The Devices & activity page, at a path of the same site (the origin is what the server trusts).
  const activityPage = servedPage({
    apiBaseUrl,
    remoteEntry: activityEntry,
    folder: 'embed-activity',
    idpOrigin,
  });
  app.get('/activity/', activityPage);
  app.get('/activity', async (_request, reply) => reply.redirect('/activity/'));
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.ready();
  return app;
}

const isMain = process.argv[1] && realpathSync(process.argv[1]) === realpathSync(import.meta.filename);
if (isMain) {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: process.env.EXAMPLES_PORT ?? '3100' },
      host: { type: 'string', default: 'localhost' },
      api: { type: 'string', default: process.env.EXAMPLES_API_URL ?? 'http://localhost:3000' },
      'remote-entry': {
        type: 'string',
        default: process.env.EXAMPLES_SECURITY_ENTRY ?? 'http://localhost:3003/remoteEntry.js',
      },
      'activity-entry': {
        type: 'string',
        default: process.env.EXAMPLES_ACTIVITY_ENTRY ?? 'http://localhost:3004/remoteEntry.js',
      },
    },
  });
  const app = await buildExamplesHost({
    apiBaseUrl: values.api,
    remoteEntry: values['remote-entry'],
    activityEntry: values['activity-entry'],
  });
  await app.listen({ port: Number(values.port), host: values.host });
  const site = `http://${values.host}:${values.port}`;
  process.stdout.write(
    `  examples: ${site}/ (the Security remote embedded), ${site}/activity/ (the Devices & activity remote)\n`,
  );
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => void app.close().then(() => process.exit(0)));
  }
}
