#!/usr/bin/env node
// Starts the portal on the embedded default from the production builds: the server (API, identity provider and
// the shell) on :3000, each built remote from its own origin, as separate teams would deploy them (each origin's
// / is that remote alone, its standalone page), and the examples on :3100 (a plain page embedding a remote).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSupervisor } from './lib/supervisor.mjs';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));

/** Each remote and the port of its own origin (config/remotes.json points the shell at these). */
export const REMOTE_HOSTS = [
  { name: 'remote-profile', port: 3001 },
  { name: 'remote-password', port: 3002 },
  { name: 'remote-security', port: 3003 },
  { name: 'remote-activity', port: 3004 },
];

const serverEntry = path.join(root, 'server/dist/server.js');
const staticHostEntry = path.join(root, 'server/dist/static-host/cli.js');
if (!existsSync(serverEntry) || !existsSync(path.join(root, 'shell/dist/index.html'))) {
  console.error('The portal is not built yet. Run `pnpm start` (it builds first) or `pnpm build`.');
  process.exit(1);
}

// Without the server there is no portal; a remote's host stopping leaves the rest running.
const supervisor = createSupervisor({ cwd: root, essential: ['server'] });
const run = (label, args) => supervisor.run(label, process.execPath, args);

run('server', [serverEntry]);
for (const { name, port } of REMOTE_HOSTS) {
  const dist = path.join(root, name, 'dist');
  if (!existsSync(path.join(dist, 'remoteEntry.js'))) continue;
  run(name, [staticHostEntry, '--root', dist, '--port', String(port)]);
}

// Another site's page that embeds the Security remote (examples/embed-security), as an integrator would.
export const EXAMPLES_PORT = 3100;
if (existsSync(path.join(root, 'remote-security', 'dist', 'remoteEntry.js'))) {
  run('examples', [path.join(root, 'examples', 'host.mjs'), '--port', String(EXAMPLES_PORT)]);
}
