// Test-only preload (`node --import`) for a portal server an e2e test starts on its own: each SIGUSR2 moves the
// process's clock (Date.now, which the server's app clock is) forward by MOVED_CLOCK_STEP_MS, and then writes the
// total offset to MOVED_CLOCK_FILE so the test knows the move is done. Never part of the product's start.
import { writeFileSync } from 'node:fs';

const step = Number(process.env.MOVED_CLOCK_STEP_MS);
const file = process.env.MOVED_CLOCK_FILE;
if (!Number.isFinite(step) || step <= 0 || !file) {
  throw new Error('moved-clock.mjs needs MOVED_CLOCK_STEP_MS (> 0) and MOVED_CLOCK_FILE');
}
const realNow = Date.now.bind(Date);
let offset = 0;
Date.now = () => realNow() + offset;
process.on('SIGUSR2', () => {
  offset += step;
  writeFileSync(file, String(offset));
});
