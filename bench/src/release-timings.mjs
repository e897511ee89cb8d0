// Issue 23's figures: the time to My Profile with no release (the bootstrap remotes file), with a stable release,
// and with the holder in a canary, interleaved run by run on one portal; and the bytes the release code (the MF
// runtime plugin, the load reports, the failure classification, the contract's release schemas) adds to the
// shell's first page. The releases are made as a team makes them: a deploy key from the operators' CLI, then
// `pnpm release` (the built CLIs, so the bench needs a build).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { explore } from 'source-map-explorer';
import { ROOT } from './portal.mjs';

const run = promisify(execFile);
const RUNS = 7;
const REMOTE = 'remote_profile';
const ENTRY = 'http://localhost:3001/remoteEntry.js';
const BUILD_DIR = path.join(ROOT, 'remote-profile', 'dist');
/** Issue 23's modules in the shell's build (source paths as the source maps name them). */
const RELEASE_SOURCES =
  /shell\/src\/features\/remotes\/(api\/(portalFederationPlugin|loadReports|loadFailureKind)|model\/activeRemotes)|shared-auth\/src\/contract\/releases/;

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The documented bucket rule (server/src/releases/canary-bucket.ts). */
const bucketOf = (sub, remote) =>
  createHash('sha256').update(`${sub}:${remote}`).digest().readUInt32BE(0) % 100;

async function cli(script, args, env) {
  const { stdout } = await run(process.execPath, [path.join(ROOT, 'server', 'dist', script), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
  });
  return stdout.trim();
}

async function profileShownMs(context, portal, familyName) {
  const page = await context.newPage();
  const started = performance.now();
  await page.goto(`${portal}/profile`);
  await page.getByRole('table').getByText(familyName).waitFor();
  const ms = performance.now() - started;
  const version = await page.locator('[data-remote="remote_profile"]').getAttribute('data-remote-version');
  await page.close();
  return { ms, version };
}

/**
 * `context` is signed in as `account` (whose `sub` is given); the portal's data folder takes the deploy key.
 * Leaves the profile remote on a stable release of the same build it started with.
 */
export async function measureReleaseTimings(context, portal, dataDir, account) {
  const bucket = bucketOf(account.sub, REMOTE);
  if (bucket > 98) return { skipped: `the holder's bucket is ${bucket}: no canary below 100 % holds it` };
  const key = await cli('release-keys-cli.js', ['create', REMOTE, '--label', 'bench'], { DATA_DIR: dataDir });
  const release = (...args) => cli('release-cli.js', args, { PORTAL_URL: portal, PORTAL_DEPLOY_KEY: key });

  const bootstrap = [];
  for (let i = 0; i < RUNS; i += 1)
    bootstrap.push((await profileShownMs(context, portal, account.familyName)).ms);

  // The same build as two releases: the figures differ only by how the set is resolved.
  await release('publish', REMOTE, BUILD_DIR, '--version', 'bench-1', '--entry-url', ENTRY);
  await release('publish', REMOTE, BUILD_DIR, '--version', 'bench-2', '--entry-url', ENTRY);
  await release('promote', REMOTE, 'bench-1');
  const stable = [];
  const canary = [];
  for (let i = 0; i < RUNS; i += 1) {
    const onStable = await profileShownMs(context, portal, account.familyName);
    if (onStable.version !== 'bench-1') throw new Error(`stable run loaded ${onStable.version}`);
    stable.push(onStable.ms);
    await release('canary', REMOTE, 'bench-2', '--percent', String(bucket + 1));
    const inCanary = await profileShownMs(context, portal, account.familyName);
    if (inCanary.version !== 'bench-2') throw new Error(`canary run loaded ${inCanary.version}`);
    canary.push(inCanary.ms);
    await release('rollback', REMOTE);
  }
  return {
    runs: RUNS,
    bootstrapMs: median(bootstrap),
    stableMs: median(stable),
    canaryMs: median(canary),
  };
}

/** The gzip bytes of the first page's shell files that issue 23's modules account for (by source-map share). */
export async function releaseCodeBytes(firstPageFiles) {
  let gzip = 0;
  let raw = 0;
  for (const file of firstPageFiles.filter((candidate) => candidate.port === '3000')) {
    const onDisk = path.join(ROOT, 'shell', 'dist', file.file);
    let result;
    try {
      result = await explore(
        { code: onDisk, map: `${onDisk}.map` },
        { output: { format: 'json' }, noBorderChecks: true },
      );
    } catch {
      continue;
    }
    const entries = Object.entries(result.bundles[0]?.files ?? {});
    const mapped = entries.reduce((sum, [, { size }]) => sum + size, 0) || 1;
    const ours = entries.filter(([source]) => RELEASE_SOURCES.test(source.replace(/\\/g, '/')));
    const oursRaw = ours.reduce((sum, [, { size }]) => sum + size, 0);
    raw += oursRaw;
    gzip += (gzipSync(readFileSync(onDisk), { level: 9 }).length * oursRaw) / mapped;
  }
  return { raw, gzip: Math.round(gzip) };
}

export function formatReleaseTimings(timings, bytes) {
  const lines = [
    'Releases (issue 23): time to My Profile shown, signed in, median of runs interleaved on one portal',
  ];
  if (timings.skipped) lines.push(`  skipped: ${timings.skipped}`);
  else {
    const ratio = (ms) => (ms / timings.bootstrapMs).toFixed(2);
    lines.push(
      `  no release (the remotes file)           ${timings.bootstrapMs.toFixed(0).padStart(5)} ms`,
      `  a stable release                        ${timings.stableMs.toFixed(0).padStart(5)} ms  (${ratio(timings.stableMs)} of no release)`,
      `  the holder in a canary                  ${timings.canaryMs.toFixed(0).padStart(5)} ms  (${ratio(timings.canaryMs)} of no release; goal: no added round trip, ≈ 1)`,
    );
  }
  if (bytes)
    lines.push(
      `  the release code in the shell's first page: ${(bytes.gzip / 1000).toFixed(1)} kB gzip (${(bytes.raw / 1000).toFixed(1)} kB minified)`,
    );
  return lines.join('\n');
}
