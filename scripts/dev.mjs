#!/usr/bin/env node
// pnpm dev: the whole portal for development, from source, reloading the page on every change.
// - Each remote runs webpack-dev-server on its own port (remote-profile 3001, remote-password 3002,
//   remote-security 3003, remote-activity 3004: where config/remotes.json points the shell). Its client is
//   injected into remoteEntry.js, so when the remote rebuilds, the shell page showing it reloads.
// - The shell is built in watch mode into data/dev/shell by a webpack-dev-server on :3005 whose only job is the
//   reload signal; the server serves those files, so the shell keeps its own origin, CSP and sign-in.
// - The server (API, embedded identity provider, the shell) runs from source on :3000 with tsx watch, and
//   restarts when its source or shared-auth's contract changes.
// Ctrl-C stops everything. `node scripts/dev.mjs --shell` is the shell's part alone (started by this script).
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createSupervisor } from './lib/supervisor.mjs';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
/** The shell's dev server: it only sends the reload signal (its websocket); the server on :3000 serves the files. */
const SHELL_DEV_PORT = 3005;
const SHELL_DEV_DIST = path.join(root, 'data', 'dev', 'shell');
const DEFAULT_TRUSTED_ORIGINS = [3001, 3002, 3003, 3004, 3100]
  .map((port) => `http://localhost:${port}`)
  .join(',');

if (process.argv.includes('--shell')) await serveShell();
else await main();

/** The shell in development mode: rebuilt on change, written to disk for the server, reload pushed to the page. */
async function serveShell() {
  const shellDir = path.join(root, 'shell');
  const shellRequire = createRequire(path.join(shellDir, 'package.json'));
  const webpack = shellRequire('webpack');
  const WebpackDevServer = shellRequire('webpack-dev-server');
  const { default: createConfig } = await import(
    pathToFileURL(path.join(shellDir, 'webpack.config.js')).href
  );
  const config = createConfig({}, { mode: 'development' });
  config.output.path = SHELL_DEV_DIST;
  const server = new WebpackDevServer(
    {
      ...config.devServer,
      port: SHELL_DEV_PORT,
      // The page comes from the server on :3000, which reads the build from disk.
      devMiddleware: { writeToDisk: true },
      static: false,
    },
    webpack(config),
  );
  await server.start();
  const stop = () => void server.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function main() {
  // The server or the shell stopping leaves nothing to develop against.
  const { run, isStopping } = createSupervisor({ cwd: root, essential: ['server', 'shell'] });

  // The shell's first build must be on disk before the server starts (it checks once for index.html).
  rmSync(SHELL_DEV_DIST, { recursive: true, force: true });
  run('shell', process.execPath, [fileURLToPath(import.meta.url), '--shell']);

  const remotes = readdirSync(root).filter(
    (name) => name.startsWith('remote-') && existsSync(path.join(root, name, 'webpack.config.js')),
  );
  for (const name of remotes) {
    const appDir = path.join(root, name);
    const webpackCli = path.join(appDir, 'node_modules', 'webpack-cli', 'bin', 'cli.js');
    run(name, process.execPath, [webpackCli, 'serve', '--mode', 'development'], { cwd: appDir });
  }

  while (!existsSync(path.join(SHELL_DEV_DIST, 'index.html'))) {
    if (isStopping()) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const serverDir = path.join(root, 'server');
  run(
    'server',
    process.execPath,
    [
      path.join(serverDir, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
      'watch',
      // shared-auth's contract from source, so a change there restarts the server too.
      '--conditions=portal-source',
      'src/server.ts',
    ],
    {
      cwd: serverDir,
      env: {
        SHELL_DIST: SHELL_DEV_DIST,
        // The shell's dev server pushes its reload signal from its own origin.
        TRUSTED_ORIGINS: `${process.env.TRUSTED_ORIGINS ?? DEFAULT_TRUSTED_ORIGINS},http://localhost:${SHELL_DEV_PORT}`,
      },
    },
  );
  console.log(
    `\nDevelopment portal: http://localhost:3000 (remotes from their dev servers on ${remotes.length} ports; ` +
      'a change in any source reloads the page). Ctrl-C stops it.\n',
  );
}
