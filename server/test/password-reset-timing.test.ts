/**
 * "Forgot password" must not tell accounts apart by its answer's time either (issue 20): the median answer time of
 * 50 requests for accounts against 50 for emails no account uses, interleaved in one run, must be less than 2 ms
 * apart. Everything that depends on the email runs after the answer (password/reset.ts), so both answers do the
 * same work. Measured twice: with the work after each answer done before the next request (asserted), and back to
 * back (printed), where an account's work after its answer (its link's write, the mail) runs during later requests:
 * it starts at a random moment within a second (password/reset.ts), so it does not land on the very next request.
 */
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { appForBlock, startApp } from './helpers.js';
import { newUser } from './security-helpers.js';

const t = appForBlock(() => startApp());
const ROUNDS = 50;
let address = 0;

async function timedRequest(email: string): Promise<number> {
  address += 1;
  const started = performance.now();
  const answer = await t.app.inject({
    method: 'POST',
    url: '/oauth2/default/reset-password',
    remoteAddress: `10.30.${Math.floor(address / 250)}.${(address % 250) + 1}`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ email }).toString(),
  });
  const elapsed = performance.now() - started;
  if (answer.statusCode !== 200) throw new Error(`reset request: ${answer.statusCode}`);
  return elapsed;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

async function measure(label: string, awaitWork: boolean) {
  const accounts = await Promise.all(Array.from({ length: ROUNDS }, () => newUser(t.app)));
  const account: number[] = [];
  const none: number[] = [];
  for (let i = 0; i < ROUNDS; i += 1) {
    // Alternate which kind goes first, so neither always follows the other's work.
    const order: ('account' | 'none')[] = i % 2 === 0 ? ['account', 'none'] : ['none', 'account'];
    for (const kind of order) {
      if (awaitWork) {
        await t.app.passwordResets?.idle();
        await t.app.notifier.drain();
      }
      if (kind === 'account') account.push(await timedRequest(accounts[i]!.user.email));
      else none.push(await timedRequest(`${label}-nobody-${i}-${Date.now()}@example.org`));
    }
  }
  await t.app.passwordResets?.idle();
  const figures = { account: median(account), none: median(none) };
  const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
  console.log(
    `password reset answer time (${label}), median of ${ROUNDS} each: account ${figures.account.toFixed(3)} ms, ` +
      `no account ${figures.none.toFixed(3)} ms, difference ${Math.abs(figures.account - figures.none).toFixed(3)} ms ` +
      `(means ${mean(account).toFixed(3)} / ${mean(none).toFixed(3)} ms)`,
  );
  return figures;
}

describe('password reset timing', () => {
  it('answers an account and no account in the same time (medians < 2 ms apart)', async () => {
    // Warm-up: the first requests compile and prepare what the others reuse.
    for (let i = 0; i < 10; i += 1) await timedRequest(`warm-up-${i}@example.org`);
    const settled = await measure('work awaited', true);
    // Printed, not asserted: on a machine shared with other work, back-to-back times move by more than the goal.
    await measure('back to back', false);
    expect(Math.abs(settled.account - settled.none)).toBeLessThan(2);
  }, 120_000);
});
