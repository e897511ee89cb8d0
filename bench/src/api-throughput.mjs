// API throughput: autocannon at 100 connections against the authenticated isfederated call and against a bare
// Fastify route, in the same run on the same machine. The figures that matter are their ratio, the API's p99, and
// the CPU each request costs the serving process (bare and API), which moves less with the machine's load.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { cpuSeconds, pidListeningOn } from './cpu.mjs';

const CONNECTIONS = 100;
const DURATION_S = 10;
const BARE_PORT = 3090;
export const GOAL_RATIO = 0.7;
export const GOAL_P99_MS = 20;

function load(url, headers) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

/** One load run of `url`, with the CPU the process `pid` used for it (µs per answered request). */
async function measured(url, pid, headers) {
  const cpuBefore = cpuSeconds([pid]);
  const result = await load(url, headers);
  const cpuAfter = cpuSeconds([pid]);
  return {
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    cpuUsPerRequest:
      pid === undefined || cpuBefore === undefined || cpuAfter === undefined
        ? undefined
        : Number((((cpuAfter - cpuBefore) * 1e6) / result.requests.total).toFixed(1)),
  };
}

/** `barePort`: where the bare route listens (its own port, free while this runs). */
export async function measureApiThroughput(portal, { accessToken, sub }, { barePort = BARE_PORT } = {}) {
  const bare = fork(fileURLToPath(new URL('./bare-server.mjs', import.meta.url)), [String(barePort)], {
    stdio: 'inherit',
  });
  await new Promise((resolve) => bare.once('message', resolve));
  try {
    // Warm both up (JIT, JWKS and statement caches) before measuring.
    const headers = { authorization: `Bearer ${accessToken}` };
    const api = `${portal}/api/profile/${sub}/isfederated`;
    await new Promise((resolve, reject) =>
      autocannon({ url: api, connections: 10, amount: 2000, headers }, (error) =>
        error ? reject(error) : resolve(),
      ),
    );
    // The portal's server is a child of scripts/start.mjs: found by the port it listens on.
    const serverPid = pidListeningOn(Number(new URL(portal).port));
    const baseline = await measured(`http://localhost:${barePort}/bare`, bare.pid);
    const authenticated = await measured(api, serverPid, headers);
    return {
      connections: CONNECTIONS,
      durationSeconds: DURATION_S,
      baseline,
      authenticated,
      ratio: authenticated.requestsPerSecond / baseline.requestsPerSecond,
    };
  } finally {
    bare.kill('SIGTERM');
  }
}

/** The figures of measureApiThroughput, each beside its goal. */
export function formatApiThroughput({ baseline, authenticated, ratio, connections, durationSeconds }) {
  const cpu = (r) => (r.cpuUsPerRequest === undefined ? 'CPU n/a' : `CPU ${r.cpuUsPerRequest} µs/request`);
  const line = (label, r) =>
    `  ${label.padEnd(44)} ${String(r.requestsPerSecond).padStart(7)} req/s  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  ${cpu(r)}  non-2xx ${r.non2xx}`;
  const met = (ok) => (ok ? 'met' : 'not met');
  const lines = [
    `API throughput (autocannon, ${connections} connections, ${durationSeconds} s each)`,
    line('bare Fastify route (baseline)', baseline),
    line('GET /api/profile/{sub}/isfederated (bearer)', authenticated),
    `  ratio ${ratio.toFixed(2)} (goal ≥ ${GOAL_RATIO}: ${met(ratio >= GOAL_RATIO)}); p99 ${authenticated.p99Ms} ms (goal ≤ ${GOAL_P99_MS} ms: ${met(authenticated.p99Ms <= GOAL_P99_MS)})`,
  ];
  if (baseline.cpuUsPerRequest !== undefined && authenticated.cpuUsPerRequest !== undefined) {
    const times = authenticated.cpuUsPerRequest / baseline.cpuUsPerRequest;
    lines.push(
      `  CPU per request: the read ${authenticated.cpuUsPerRequest} µs, the bare route ${baseline.cpuUsPerRequest} µs (${times.toFixed(1)}×)`,
    );
  }
  return lines.join('\n');
}
