// The e2e suite's server: a fresh data folder, then the portal exactly as `pnpm start` runs it after its build.
import { rmSync } from 'node:fs';

const dataDir = process.env.DATA_DIR;
if (!dataDir || !dataDir.includes('e2e')) {
  throw new Error(
    `Refusing to clear DATA_DIR="${dataDir ?? ''}": the e2e suite only clears its own data folder.`,
  );
}
rmSync(dataDir, { recursive: true, force: true });
await import('../../scripts/start.mjs');
