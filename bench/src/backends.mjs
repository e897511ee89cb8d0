// PostgreSQL against SQLite, several instances against one, and the database round trips of each call (issue 11's
// "Measure"). Every server here is started by this file on ports of its own, and stopped at the end.
//   1. One instance on SQLite, one on PostgreSQL: the authenticated GET (isfederated) and the profile update under
//      the same autocannon load; the ratio PG/SQLite of each (goal ≥ 0.8).
//   2. The same GET through a round-robin proxy to one instance, then to two (both on the same PostgreSQL).
//   3. Round trips per call: a third instance on a database that logs every statement it receives
//      (log_statement = all, set on the database, not in the product); the statements logged while N requests of
//      one call run, divided by N.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { cpuSeconds } from './cpu.mjs';
import { startPostgres } from './embedded-postgres.mjs';
import { signInOverHttp } from './http-sign-in.mjs';
import { freshDataDir, startInstance } from './instance.mjs';
import { ROOT } from './portal.mjs';
import { startRoundRobinProxy } from './round-robin-proxy.mjs';

export const CONNECTIONS = 100;
export const DURATION_S = 5;
const POSTGRES_PORT = 5460;
const SQLITE_PORT = 3320;
const POSTGRES_PORTS = [3321, 3322];
const ROUND_TRIPS_PORT = 3323;
const PROXY_PORT = 3330;

const ALICE = { email: 'alice@example.com', password: 'Wonderland-42' };
// A profile update the page could send (the same body every time: the row is written each time all the same).
const UPDATE_BODY = JSON.stringify({ firstName: 'Alice', lastName: 'Liddell', country: 'GB' });

function cannon(options) {
  return new Promise((resolve, reject) => {
    autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
  });
}

const summary = (result, cpuSecondsUsed) => ({
  requestsPerSecond: Math.round(result.requests.average),
  p50Ms: result.latency.p50,
  p99Ms: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  // CPU of the serving processes (instances, PostgreSQL, proxy) per answered request: the machine's cost of a call.
  cpuMsPerRequest:
    cpuSecondsUsed === undefined
      ? undefined
      : Number(((cpuSecondsUsed * 1000) / result.requests.total).toFixed(3)),
});

/** The two calls of the comparison, as autocannon requests for `base` and a signed-in `{ accessToken, sub }`. */
function callsOf(base, { accessToken, sub }) {
  const authorization = `Bearer ${accessToken}`;
  return {
    get: { url: `${base}/api/profile/${sub}/isfederated`, headers: { authorization } },
    update: {
      url: `${base}/api/profile/${sub}/update`,
      method: 'PUT',
      headers: { authorization, 'content-type': 'application/json' },
      body: UPDATE_BODY,
    },
  };
}

/** Fails unless one request of `call` is answered 2xx: a figure of refusals would measure nothing. */
async function expectOk(call) {
  const response = await fetch(call.url, {
    method: call.method ?? 'GET',
    headers: call.headers,
    body: call.body,
  });
  const body = await response.text();
  if (!response.ok)
    throw new Error(`${call.method ?? 'GET'} ${call.url}: ${response.status} ${body.slice(0, 200)}`);
}

/**
 * Warms a call up (JIT, JWKS, statement caches, the pool's connections), then measures it; `pids` are the
 * processes that serve it (their CPU time is counted).
 */
async function measure(call, pids, { warmup = 1000 } = {}) {
  await expectOk(call);
  await cannon({ ...call, connections: 10, amount: warmup });
  const cpuBefore = cpuSeconds(pids);
  const result = await cannon({ ...call, connections: CONNECTIONS, duration: DURATION_S });
  const cpuAfter = cpuSeconds(pids);
  return summary(result, cpuAfter === undefined ? undefined : cpuAfter - cpuBefore);
}

/** Resolves once no statement has been logged for `quietMs` (the statements a call sends after it answers too). */
async function settled(postgres, database, quietMs = 250) {
  let count = postgres.statements(database).length;
  let quietSince = performance.now();
  while (performance.now() - quietSince < quietMs) {
    await new Promise((resolve) => setTimeout(resolve, 25));
    const now = postgres.statements(database).length;
    if (now !== count) {
      count = now;
      quietSince = performance.now();
    }
  }
  return count;
}

/**
 * Runs `send(i)` (one request, resolving to its status) once alone (for the statements of one request), then `n`
 * times in a row, and counts the server's statements that PostgreSQL logged for `database`.
 */
async function roundTripsOf(postgres, database, n, send, { before: prepare } = {}) {
  // Only the instance connects to this database: whatever it logged, the instance sent.
  const fromServer = () => postgres.statements(database);
  const check = (status, i) => {
    if (status < 200 || status >= 300) throw new Error(`request ${i} answered ${status}`);
  };
  // What `prepare` sends before a request (a renewal after a password change) is not the request's.
  const measured = async (i) => {
    if (prepare) await prepare(i);
    await settled(postgres, database);
    const before = fromServer().length;
    check(await send(i), i);
    await settled(postgres, database);
    return fromServer().slice(before);
  };
  const one = await measured(0);
  const logged = [];
  for (let i = 1; i <= n; i += 1) logged.push(...(await measured(i)));
  return {
    requests: n,
    roundTripsPerRequest: logged.length / n,
    statementsPerRequest: logged.reduce((sum, entry) => sum + entry.statements, 0) / n,
    // What one request sent: the first words of each message (a "BEGIN; SELECT …" message is one round trip).
    oneRequest: one.map((entry) => entry.text.replace(/\s+/g, ' ').trim().split(' ').slice(0, 2).join(' ')),
    // …and each message whole (shortened), for `--list`.
    oneRequestTexts: one.map((entry) => entry.text.replace(/\s+/g, ' ').trim().slice(0, 200)),
  };
}

async function roundTrips(postgres, database, totpKey) {
  const instance = await startInstance({
    name: 'round-trips',
    port: ROUND_TRIPS_PORT,
    databaseUrl: postgres.urlOf(database),
    totpKey,
  });
  try {
    const session = await signInOverHttp(instance.url, ALICE);
    const api = (method, path, body) => async () => {
      const response = await fetch(`${instance.url}${path.replace(':sub', session.sub)}`, {
        method,
        headers: {
          authorization: `Bearer ${session.accessToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      await response.arrayBuffer();
      return response.status;
    };
    const calls = [
      ['GET', '/api/profile/:sub/isfederated', 100],
      ['PUT', '/api/profile/:sub/update', 50, JSON.parse(UPDATE_BODY)],
      ['GET', '/api/stepup/:sub/challenge', 100],
      ['GET', '/api/multifactor/googleauth/:sub/details', 100],
      ['GET', '/api/multifactor/email/:sub/details', 100],
    ];
    const rows = [];
    for (const [method, path, n, body] of calls) {
      const send = api(method, path, body);
      rows.push({ call: `${method} ${path}`, ...(await roundTripsOf(postgres, database, n, send)) });
    }
    // Password changes last: argon2 makes each one slow, so few; back and forth between two passwords, an even
    // number of times in all (1 + 3), so the account ends with its first password.
    const passwords = [ALICE.password, 'Looking-Glass-43'];
    const change = (i) =>
      api('PUT', '/api/password/:sub/change', {
        OldPassword: passwords[i % 2],
        NewPassword: passwords[(i + 1) % 2],
      })();
    // Each change ends every grant of the account, this session's too: it renews with its cookie in between.
    rows.push({
      call: 'PUT /api/password/:sub/change',
      ...(await roundTripsOf(postgres, database, 3, change, {
        before: (i) => (i > 0 ? session.renew() : undefined),
      })),
    });
    // Not a contract call: the whole sign-in (authorize, sign-in page, form, code exchange), for scale.
    const signIn = async () => (await signInOverHttp(instance.url, ALICE), 200);
    rows.push({
      call: 'sign-in over HTTP (whole flow)',
      ...(await roundTripsOf(postgres, database, 3, signIn)),
    });
    return rows;
  } finally {
    await instance.stop();
  }
}

/**
 * Runs the three measurements; resolves to their figures (see bench.mjs for how they are printed).
 * `throughput: false` skips 1 and 2, `roundTrips: false` skips 3 (when run alone, below).
 */
export async function measureBackends({ throughput = true, roundTrips: countRoundTrips = true } = {}) {
  const stack = [];
  const stopAll = async () => {
    for (const stop of stack.reverse()) await stop();
  };
  // Other work on the machine moves requests per second (less so CPU per request): the figures say how busy it was.
  const loadAverageBefore = Number(loadavg()[0].toFixed(2));
  try {
    const postgres = await startPostgres({ port: POSTGRES_PORT });
    stack.push(() => postgres.stop());
    await postgres.createDatabase('bench_throughput');
    await postgres.createDatabase('bench_round_trips', { logStatements: true });
    // The key every instance of one deployment shares (required with DATABASE_URL).
    const totpKey = randomBytes(32).toString('hex');
    const roundTripRows = countRoundTrips ? await roundTrips(postgres, 'bench_round_trips', totpKey) : [];
    if (!throughput) return { loadAverageBefore, roundTrips: roundTripRows };

    const sqlite = await startInstance({ name: 'sqlite', port: SQLITE_PORT });
    stack.push(() => sqlite.stop());
    // The PostgreSQL instances are one deployment behind the proxy: its origin is their PUBLIC_URL (the issuer).
    const proxy = await startRoundRobinProxy({ port: PROXY_PORT, upstreamPorts: [POSTGRES_PORTS[0]] });
    stack.push(() => proxy.stop());
    const pgSettings = {
      databaseUrl: postgres.urlOf('bench_throughput'),
      totpKey,
      publicUrl: proxy.url,
      // While the provider's signing and cookie keys are files in DATA_DIR (the database's key ring is not wired in
      // yet), the two instances share one folder, as the e2e cluster does; with the key ring it changes nothing.
      dataDir: freshDataDir('postgres-shared'),
    };
    const first = await startInstance({ name: 'postgres-1', port: POSTGRES_PORTS[0], ...pgSettings });
    stack.push(() => first.stop());

    const sqliteCalls = callsOf(sqlite.url, await signInOverHttp(sqlite.url, ALICE));
    const pgSession = await signInOverHttp(proxy.url, ALICE);
    const pgCalls = callsOf(first.url, pgSession);
    const sqlitePids = [sqlite.pid];
    const pgPids = [first.pid, postgres.pid];
    const sqliteGet = await measure(sqliteCalls.get, sqlitePids);
    const pgGet = await measure(pgCalls.get, pgPids);
    const sqliteUpdate = await measure(sqliteCalls.update, sqlitePids, { warmup: 500 });
    const pgUpdate = await measure(pgCalls.update, pgPids, { warmup: 500 });
    await sqlite.stop();

    // The second instance joins the same database; the proxy's pool goes from one instance to two.
    const second = await startInstance({ name: 'postgres-2', port: POSTGRES_PORTS[1], ...pgSettings });
    stack.push(() => second.stop());
    const secondGet = callsOf(second.url, pgSession).get;
    await expectOk(secondGet);
    await cannon({ ...secondGet, connections: 10, amount: 1000 });
    const servingPids = [proxy.pid, first.pid, second.pid, postgres.pid];
    const oneBehindProxy = await measure(callsOf(proxy.url, pgSession).get, servingPids);
    await proxy.setUpstreams(POSTGRES_PORTS);
    const twoBehindProxy = await measure(callsOf(proxy.url, pgSession).get, servingPids);
    await second.stop();
    await first.stop();
    await proxy.stop();

    return {
      loadAverageBefore,
      connections: CONNECTIONS,
      durationSeconds: DURATION_S,
      sqlite: { get: sqliteGet, update: sqliteUpdate },
      postgres: { get: pgGet, update: pgUpdate },
      ratio: {
        get: pgGet.requestsPerSecond / sqliteGet.requestsPerSecond,
        update: pgUpdate.requestsPerSecond / sqliteUpdate.requestsPerSecond,
      },
      instances: { oneDirect: pgGet, oneBehindProxy, twoBehindProxy },
      roundTrips: roundTripRows,
    };
  } finally {
    await stopAll();
    rmSync(path.join(ROOT, 'data', 'bench-backends'), { recursive: true, force: true });
  }
}

export const RATIO_GOAL = 0.8;

/** The round trips each call may cost at most (issue 24): the call as roundTrips names it, its label, the goal. */
const ROUND_TRIP_GOALS = [
  ['GET /api/profile/:sub/isfederated', 'authenticated read (isfederated)', 1],
  ['PUT /api/password/:sub/change', 'password change', 10],
  ['sign-in over HTTP (whole flow)', 'whole sign-in', 12],
];

/** The figures of measureBackends as the lines bench.mjs prints; `listStatements` adds each call's messages. */
export function formatBackends(figures, { listStatements = false } = {}) {
  const { connections, durationSeconds, sqlite, postgres, ratio, instances, roundTrips: rows } = figures;
  const number = (value, width, digits = 0) =>
    (value === undefined ? '–' : value.toFixed(digits)).padStart(width);
  const row = (label, r) =>
    `  ${label.padEnd(34)}${number(r.requestsPerSecond, 7)}${number(r.p50Ms, 8)}${number(r.p99Ms, 8)}` +
    `${number(r.cpuMsPerRequest, 11, 3)}${number(r.non2xx + r.errors, 8)}`;
  const header =
    `  ${''.padEnd(34)}${'req/s'.padStart(7)}${'p50 ms'.padStart(8)}${'p99 ms'.padStart(8)}` +
    `${'CPU ms/req'.padStart(11)}${'failed'.padStart(8)}`;
  const cpuRatio = (a, b) =>
    a.cpuMsPerRequest && b.cpuMsPerRequest
      ? `; CPU per request ×${(b.cpuMsPerRequest / a.cpuMsPerRequest).toFixed(1)}`
      : '';
  const verdict = (value) =>
    `${value.toFixed(2)} (goal ≥ ${RATIO_GOAL}: ${value >= RATIO_GOAL ? 'met' : 'not met'})`;
  const lines =
    sqlite === undefined
      ? []
      : [
          `PostgreSQL against SQLite: one instance each, same run (autocannon, ${connections} connections, ` +
            `${durationSeconds} s each after a warm-up; load average before: ${figures.loadAverageBefore})`,
          header,
          row('GET isfederated (bearer), SQLite', sqlite.get),
          row('GET isfederated (bearer), PG', postgres.get),
          `  ratio PG/SQLite ${verdict(ratio.get)}${cpuRatio(sqlite.get, postgres.get)}`,
          row('PUT profile update, SQLite', sqlite.update),
          row('PUT profile update, PG', postgres.update),
          `  ratio PG/SQLite ${verdict(ratio.update)}${cpuRatio(sqlite.update, postgres.update)}`,
          '  CPU ms/req: CPU time of the serving processes (instance, PostgreSQL, proxy) per answered request; it moves',
          '  less than req/s with what else runs on the machine. failed: non-2xx answers and connection errors.',
          '',
          'Instances behind a round-robin proxy (PostgreSQL, GET isfederated, same load)',
          header,
          row('one instance, direct', instances.oneDirect),
          row('one instance behind the proxy', instances.oneBehindProxy),
          row('two instances behind the proxy', instances.twoBehindProxy),
          `  two/one behind the proxy: ${(instances.twoBehindProxy.requestsPerSecond / instances.oneBehindProxy.requestsPerSecond).toFixed(2)}`,
          "  The load generator, the proxy, both instances and PostgreSQL share this machine's 2 cores: this cannot",
          '  show scaling (a second instance only adds processes to the same CPUs). It shows that any request may',
          '  reach either instance (failed 0: a token from one is accepted by the other) and what the extra hop costs;',
          '  scaling needs instances on machines of their own.',
          '',
        ];
  lines.push(
    'Database round trips per call (PostgreSQL: the statements it logged (log_statement = all) while N requests',
    'of one call ran in a row, divided by N; a "BEGIN; SELECT …" message is one round trip, two statements)',
    `  ${'call'.padEnd(48)}${'N'.padStart(4)}${'trips/req'.padStart(11)}${'stmts/req'.padStart(11)}  one request`,
  );
  for (const entry of rows) {
    const kinds = new Map();
    for (const text of entry.oneRequest) {
      const kind = text.split(' ')[0].replace(/;$/, '').toUpperCase();
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    }
    const what = [...kinds].map(([kind, count]) => `${count} ${kind}`).join(', ');
    lines.push(
      `  ${entry.call.replace(':sub', '{sub}').padEnd(48)}${number(entry.requests, 4)}` +
        `${number(entry.roundTripsPerRequest, 11, 2)}${number(entry.statementsPerRequest, 11, 2)}  ${what}`,
    );
  }
  for (const [call, label, goal] of ROUND_TRIP_GOALS) {
    const entry = rows.find((candidate) => candidate.call === call);
    if (entry)
      lines.push(
        `  ${label}: ${entry.roundTripsPerRequest.toFixed(2)} round trips ` +
          `(goal ≤ ${goal}: ${entry.roundTripsPerRequest <= goal ? 'met' : 'not met'})`,
      );
  }
  if (listStatements)
    for (const entry of rows) {
      lines.push('', `  ${entry.call}: the messages of one request`);
      entry.oneRequestTexts.forEach((text, index) =>
        lines.push(`   ${String(index + 1).padStart(3)}. ${text}`),
      );
    }
  return lines.join('\n');
}

// Run alone (after `pnpm --filter server build`): `node bench/src/backends.mjs [--round-trips-only] [--list]`.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = new Set(process.argv.slice(2));
  const figures = await measureBackends({ throughput: !args.has('--round-trips-only') });
  console.log(formatBackends(figures, { listStatements: args.has('--list') }));
}
