// Serves one remote's build folder: node server/dist/static-host/cli.js --root remote-profile/dist --port 3001
// (or a folder of versioned builds: --root cdn, serving cdn/remote-profile/1.1.0/remoteEntry.js and the like).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { stopOnSignals } from '../http/shutdown.js';
import { buildStaticHost, remoteEntriesIn } from './app.js';

const DEFAULT_ORIGINS = 'http://localhost:3000,http://localhost:3100';

function fail(message: string): never {
  process.stderr.write(`static-host: ${message}\n`);
  process.exit(2);
}

const { values } = parseArgs({
  options: {
    root: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string', default: 'localhost' },
    'allow-origins': { type: 'string', default: process.env.STATIC_ALLOWED_ORIGINS ?? DEFAULT_ORIGINS },
  },
});

if (!values.root) fail('--root <folder> is required');
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535)
  fail(`--port must be a port number, got "${values.port}"`);

const allowedOrigins = values['allow-origins']
  .split(',')
  .map((origin) => origin.trim())
  .filter(Boolean);

const root = path.resolve(values.root);
const app = await buildStaticHost({ root, allowedOrigins, logger: { level: 'warn' } }).catch(
  (error: unknown) => fail(error instanceof Error ? error.message : String(error)),
);
await app.listen({ port, host: values.host });
// One line per build served (a folder of versions has several).
for (const entry of remoteEntriesIn(root)) {
  process.stdout.write(`  ${path.basename(path.dirname(root))}: http://${values.host}:${port}/${entry}\n`);
}

// Static files answer at once: 2 s is plenty for those in flight, and an idle browser connection never holds it.
stopOnSignals(app, 2000);
