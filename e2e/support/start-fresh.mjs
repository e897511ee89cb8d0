// The e2e suite's server: a fresh data folder, then the portal exactly as `pnpm start` runs it after its build.
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(fileURLToPath(new URL('../..', import.meta.url)));
const dataDir = process.env.DATA_DIR;
if (!dataDir || !dataDir.includes('e2e')) {
  throw new Error(
    `Refusing to clear DATA_DIR="${dataDir ?? ''}": the e2e suite only clears its own data folder.`,
  );
}
rmSync(dataDir, { recursive: true, force: true });

// The server reads a copy of the remotes file in the data folder, so tests may switch a remote's version and roll
// it back (e2e/support/remotes-file.ts) without ever editing the repository's config/remotes.json.
mkdirSync(dataDir, { recursive: true });
const remotesFile = path.join(dataDir, 'remotes.json');
copyFileSync(process.env.REMOTES_FILE ?? path.join(root, 'config', 'remotes.json'), remotesFile);
process.env.REMOTES_FILE = remotesFile;

await import('../../scripts/start.mjs');
