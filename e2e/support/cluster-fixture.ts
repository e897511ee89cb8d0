// The cluster tests' `test`: one cluster per worker (started on first use, stopped when the worker ends, whatever
// the tests did), checked to be whole before each test, with its output attached to a failing test.
import { test as base, expect } from '@playwright/test';
import { generateSync } from 'otplib';
import { Cluster, type InstanceName } from './cluster.js';
import { accessTokenOf } from './sign-in.js';
import type { ProxiedRequest } from './cluster-proxy.js';

export const test = base.extend<{ cluster: Cluster }, { clusterOfWorker: Cluster }>({
  clusterOfWorker: [
    // eslint-disable-next-line no-empty-pattern -- Playwright requires the destructuring pattern
    async ({}, use) => {
      const cluster = await Cluster.start();
      try {
        await use(cluster);
      } finally {
        await cluster.stop();
      }
    },
    // A whole topology starts here (processes, validators, static hosts): 10-20 s on a quiet machine, and the
    // Okta one once took over 60 s at load 17 (another build and the suite's other workers beside it), a cluster
    // instance alone as long.
    { scope: 'worker', timeout: 300_000 },
  ],
  cluster: async ({ clusterOfWorker }, use, testInfo) => {
    // A fault test that failed half-way may have left an instance or the database down.
    await clusterOfWorker.ensureRunning();
    const mark = clusterOfWorker.proxy.mark();
    await use(clusterOfWorker);
    if (testInfo.status !== testInfo.expectedStatus) {
      await testInfo.attach('cluster output', { body: clusterOfWorker.logs(), contentType: 'text/plain' });
      const requests = clusterOfWorker.requestsSince(mark).map(
        (r) =>
          // Status 0: still unanswered when the test ended, `ago` after it was sent.
          `${r.seq} ${r.instance ?? '-'} ${r.status} ${r.status === 0 ? `unanswered, sent ${Date.now() - r.startedAt}ms ago` : `${r.ms}ms`} ${r.method} ${r.url}${r.proxyError ? ` (${r.proxyError})` : ''}`,
      );
      await testInfo.attach('proxy record', { body: requests.join('\n'), contentType: 'text/plain' });
    }
  },
});

export { accessTokenOf, expect };

const STEP_SECONDS = 30;

/**
 * The test's authenticator app, for flows that need three codes in a row: the server accepts the previous, the
 * current and the next 30-second step, each step once. Starting from the previous step gives three codes without
 * waiting for the clock (security-helpers' Authenticator starts at the current one, so its third code waits for
 * the next step). A previous-step code is used only with 3 s or more left in the current step.
 */
export class NoWaitAuthenticator {
  private lastStep = Number.NEGATIVE_INFINITY;

  constructor(readonly secret: string) {}

  async code(): Promise<string> {
    for (;;) {
      const now = Date.now() / 1000;
      const current = Math.floor(now / STEP_SECONDS);
      const left = STEP_SECONDS - (now % STEP_SECONDS);
      const step = Math.max(this.lastStep + 1, left >= 3 ? current - 1 : current);
      if (step <= current + 1) {
        this.lastStep = step;
        return generateSync({ secret: this.secret, epoch: step * STEP_SECONDS + 1 });
      }
      await new Promise((resolve) => setTimeout(resolve, left * 1000 + 100));
    }
  }
}

/** The instances that answered `requests` (in the proxy's record), without the proxy's own answers. */
export function instancesOf(requests: readonly ProxiedRequest[]): Set<InstanceName> {
  return new Set(requests.flatMap((request) => (request.instance ? [request.instance as InstanceName] : [])));
}

/** Whether some two consecutive requests of `requests` were answered by different instances. */
export function alternates(requests: readonly ProxiedRequest[]): boolean {
  return requests.some(
    (request, index) =>
      index > 0 && request.instance !== undefined && request.instance !== requests[index - 1]!.instance,
  );
}

/** The account API's calls, as the record names them. */
export const isApiCall = (request: ProxiedRequest) => request.url.startsWith('/api/');
/** The identity provider's requests (authorize, the sign-in pages under it, token, keys…). */
export const isProviderRequest = (request: ProxiedRequest) => request.url.startsWith('/oauth2/');
