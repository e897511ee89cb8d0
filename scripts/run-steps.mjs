#!/usr/bin/env node
// Runs the named steps of a root script one after another, stops at the first failure, and prints (and keeps,
// in data/timings/<name>.json) how long each took, so `pnpm bench` can report the suite's time.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const [name, ...steps] = process.argv.slice(2);
if (!name || steps.length === 0) {
  console.error('usage: run-steps.mjs <name> <pnpm script>...');
  process.exit(2);
}

const timings = [];
const started = Date.now();
for (const step of steps) {
  console.log(`\n▶ ${step}`);
  const stepStarted = Date.now();
  const result = spawnSync('pnpm', ['run', step], {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  });
  const seconds = (Date.now() - stepStarted) / 1000;
  timings.push({ step, seconds, ok: result.status === 0 });
  if (result.status !== 0) {
    report(false);
    process.exit(result.status ?? 1);
  }
}
report(true);

function report(ok) {
  const total = (Date.now() - started) / 1000;
  console.log(`\n${name}: ${ok ? 'passed' : 'FAILED'} in ${total.toFixed(0)} s`);
  for (const { step, seconds, ok: stepOk } of timings) {
    console.log(`  ${stepOk ? '✓' : '✗'} ${step.padEnd(12)} ${seconds.toFixed(1).padStart(7)} s`);
  }
  const dir = path.join(root, 'data', 'timings');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, `${name}.json`),
    `${JSON.stringify({ name, ok, at: new Date().toISOString(), totalSeconds: total, steps: timings }, null, 2)}\n`,
  );
}
