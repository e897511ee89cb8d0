// API throughput: autocannon at 100 connections against the authenticated isfederated call and against a bare
// Fastify route, in the same run on the same machine. The figure that matters is their ratio.
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const CONNECTIONS = 100;
const DURATION_S = 10;
const BARE_PORT = 3090;

function load(url, headers) {
  return new Promise((resolve, reject) => {
    autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, headers }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

const summary = (result) => ({
  requestsPerSecond: Math.round(result.requests.average),
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors,
});

export async function measureApiThroughput(portal, { accessToken, sub }) {
  const bare = fork(fileURLToPath(new URL('./bare-server.mjs', import.meta.url)), [String(BARE_PORT)], {
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
    const baseline = summary(await load(`http://localhost:${BARE_PORT}/bare`));
    const authenticated = summary(await load(api, headers));
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
