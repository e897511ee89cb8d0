import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from './paths.js';

const run = promisify(execFile);

/** A folder of the test's own under the system's temp folder (the caller removes it). */
export function tempFolder(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `portal-e2e-${prefix}-`));
}

/**
 * Builds a copy of a remote into `outputPath`, exactly as its team would (`webpack --mode production`), with
 * extra environment: BUILD_ID to stamp the build, SHARED_AUTH_VERSION to build it as if against another
 * shared-auth. The repository's own dist/ is left alone. Takes 15-40 s on two cores.
 */
export async function buildRemoteCopy(
  remote: 'remote-profile' | 'remote-password' | 'remote-security' | 'remote-activity',
  outputPath: string,
  env: Record<string, string>,
): Promise<void> {
  const appDir = path.join(REPO_ROOT, remote);
  const webpackCli = path.join(appDir, 'node_modules', 'webpack-cli', 'bin', 'cli.js');
  await run(process.execPath, [webpackCli, '--mode', 'production', '--output-path', outputPath], {
    cwd: appDir,
    env: { ...process.env, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
}
