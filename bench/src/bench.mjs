#!/usr/bin/env node
// pnpm bench: builds (timed), starts the portal on a fresh data folder, and prints the figures the issues ask for.
// Flags: --no-build uses the last build. Results also go to data/bench/results.json.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { launchChromium, signedInContext } from './browser.mjs';
import { measureFirstPage } from './first-page.mjs';
import { PORTAL, ROOT, startPortal } from './portal.mjs';

const ALICE = { email: 'alice@example.com', password: 'Wonderland-42', familyName: 'Liddell' };
const GOAL_BYTES = 375_000;
const GUARD_RAIL_BYTES = 450_000;
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

const args = new Set(process.argv.slice(2));
const results = { at: new Date().toISOString() };

if (!args.has('--no-build')) {
  console.log('Building (pnpm build)…');
  const started = Date.now();
  const build = spawnSync('pnpm', ['build'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  if (build.status !== 0) process.exit(build.status ?? 1);
  results.buildSeconds = (Date.now() - started) / 1000;
}

const portal = await startPortal();
const browser = await launchChromium();
try {
  const context = await signedInContext(browser, PORTAL, ALICE);
  results.firstPage = await measureFirstPage(context, PORTAL, ALICE);
  await context.close();
} finally {
  await browser.close();
  await portal.stop();
}

const { files, byPackage } = results.firstPage;
const total = files.reduce((sum, file) => sum + file.gzip, 0);
results.firstPage.totalGzip = total;

console.log('\nFirst page: JS and CSS loaded before /profile renders (signed in), gzip -9');
for (const file of files) console.log(`  ${kB(file.gzip).padStart(10)}  ${file.url}`);
console.log('\n  by package:');
for (const { name, gzip } of byPackage) console.log(`  ${kB(gzip).padStart(10)}  ${name}`);
console.log(`  ${'—'.repeat(10)}`);
console.log(`  ${kB(total).padStart(10)}  total (${files.length} files)`);
const distance = total - GOAL_BYTES;
console.log(
  `  goal ≤ ${kB(GOAL_BYTES)}: ${distance <= 0 ? `met, ${kB(-distance)} under` : `${kB(distance)} over`}; guard rail ${kB(GUARD_RAIL_BYTES)}`,
);

if (results.buildSeconds) console.log(`\nBuild (pnpm build, all apps): ${results.buildSeconds.toFixed(1)} s`);
const timingsFile = path.join(ROOT, 'data', 'timings', 'test.json');
if (existsSync(timingsFile)) {
  const timings = JSON.parse(readFileSync(timingsFile, 'utf8'));
  results.lastTestRun = timings;
  console.log(
    `\nLast \`pnpm test\` (${timings.at}, ${timings.ok ? 'passed' : 'failed'}): ${timings.totalSeconds.toFixed(0)} s`,
  );
  for (const step of timings.steps)
    console.log(`  ${step.step.padEnd(12)} ${step.seconds.toFixed(1).padStart(7)} s`);
} else {
  console.log('\nNo `pnpm test` timings yet (run `pnpm test` once to record them).');
}

mkdirSync(path.join(ROOT, 'data', 'bench'), { recursive: true });
writeFileSync(path.join(ROOT, 'data', 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
