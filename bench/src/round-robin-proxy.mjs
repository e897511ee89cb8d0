// A round-robin HTTP proxy over node:http, the load balancer of the bench's multi-instance figure: each request goes
// to the next instance in turn (no stickiness), over kept-alive connections, as a production balancer does. It runs
// in a process of its own, so that it does not share the load generator's event loop.
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);

/** Headers that belong to one connection and are never forwarded (RFC 9110 section 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
]);

const forwardable = (headers) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

/** The proxy itself (in the child process): listens on `port`, spreads requests over `upstreams()`. */
function serve(port, upstreams) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  let next = 0;
  const server = http.createServer((request, response) => {
    const ports = upstreams();
    next = (next + 1) % ports.length;
    const upstreamPort = ports[next];
    const upstream = http.request(
      {
        host: 'localhost',
        port: upstreamPort,
        method: request.method,
        path: request.url,
        headers: forwardable(request.headers),
        agent,
      },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, forwardable(answer.headers));
        answer.pipe(response);
      },
    );
    upstream.on('error', (error) => {
      if (response.headersSent) return void response.destroy(error);
      response.writeHead(502, { 'content-type': 'text/plain' });
      response.end(`proxy: no answer from localhost:${upstreamPort}: ${error.message}`);
    });
    request.pipe(upstream);
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, 'localhost', () => resolve(server));
  });
}

/**
 * Starts the proxy on `port` in a child process, in front of `upstreamPorts` (on localhost). Returns
 * `{ url, pid, setUpstreams(ports), stop() }`: setUpstreams changes the instances behind it (as a balancer's pool
 * changes) and resolves once the proxy uses them; the URL stays.
 */
export async function startRoundRobinProxy({ port, upstreamPorts }) {
  const child = fork(SELF, [String(port), ...upstreamPorts.map(String)], { stdio: 'inherit' });
  const reply = () =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`the proxy on port ${port} exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (message) => {
        child.removeListener('exit', onExit);
        resolve(message);
      });
    });
  await reply();
  return {
    url: `http://localhost:${port}`,
    pid: child.pid,
    async setUpstreams(ports) {
      const done = reply();
      child.send({ upstreams: ports });
      await done;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise((resolve) => {
        child.once('exit', resolve);
        child.kill('SIGTERM');
      });
    },
  };
}

if (process.argv[1] === SELF) {
  const [port, ...initial] = process.argv.slice(2).map(Number);
  let upstreams = initial;
  const server = await serve(port, () => upstreams);
  process.on('message', (message) => {
    upstreams = message.upstreams;
    process.send('ok');
  });
  process.on('SIGTERM', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
  // Never outlive the bench.
  process.on('disconnect', () => process.exit(0));
  process.send('listening');
}
