#!/usr/bin/env node
// Runs the named steps of a root script one after another, stops at the first failure, and prints (and keeps,
// in data/timings/<name>.json) how long each took, so `pnpm bench` can report the suite's time.
// A step written `a+b` runs a and b side by side: each is single-threaded (eslint, tsc), so on two cores the pair
// takes about as long as the slower one. Their output is printed whole, one after the other, as each ends. (jest and
// vitest side by side were no faster than one after the other: 271 s against 254 s, each already uses both cores.)
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(fileURLToPath(new URL('..', import.meta.url)));
const [name, ...steps] = process.argv.slice(2);
if (!name || steps.length === 0) {
  console.error('usage: run-steps.mjs <name> <pnpm script>[+<pnpm script>]...');
  process.exit(2);
}

/** Runs one pnpm script; `buffered` keeps its output until it ends (for scripts that run side by side). */
function runScript(step, buffered) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn('pnpm', ['run', step], {
      cwd: root,
      stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit',
      shell: process.platform === 'win32',
    });
    const output = [];
    child.stdout?.on('data', (chunk) => output.push(chunk));
    child.stderr?.on('data', (chunk) => output.push(chunk));
    const finish = (status) => {
      if (buffered) {
        console.log(`\n▶ ${step}`);
        process.stdout.write(Buffer.concat(output));
      }
      resolve({ step, seconds: (Date.now() - started) / 1000, ok: status === 0, status: status ?? 1 });
    };
    child.on('error', (error) => {
      output.push(Buffer.from(`${error.message}\n`));
      finish(1);
    });
    child.on('close', finish);
  });
}

const timings = [];
const started = Date.now();
for (const step of steps) {
  const parts = step.split('+');
  if (parts.length === 1) console.log(`\n▶ ${step}`);
  else console.log(`\n▶ ${parts.join(' and ')}, side by side`);
  const results = await Promise.all(parts.map((part) => runScript(part, parts.length > 1)));
  timings.push(...results.map(({ step: part, seconds, ok }) => ({ step: part, seconds, ok })));
  const failed = results.find((result) => !result.ok);
  if (failed) {
    report(false);
    process.exit(failed.status);
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
