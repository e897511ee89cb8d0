// The load balancer of the cluster tests: a round-robin HTTP proxy over node:http. Each request goes to the next
// instance in turn (no stickiness: consecutive requests of one browser land on different instances), an instance
// that refuses the connection is skipped (what a load balancer's health check gives), and every request is
// recorded with the instance that answered it, so a test can assert where its calls went.
import http, { type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

export interface Upstream {
  /** The instance's name in the record and in the X-Served-By answer header. */
  name: string;
  port: number;
}

export interface ProxiedRequest {
  /** Order of arrival at the proxy. */
  seq: number;
  method: string;
  /** Path and query, as the browser sent them. */
  url: string;
  /** The instance that answered; undefined when none could be reached. */
  instance: string | undefined;
  /** The instance's status, or 502 from the proxy when no instance answered (see `proxyError`). */
  status: number;
  /** Set when the status is the proxy's own: why no instance answered (connection refused by all, reset…). */
  proxyError?: string;
  startedAt: number;
  /** Time to the answer's headers, in ms. */
  ms: number;
}

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

function forwardable(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

/** The answer header naming the instance (also in the record): visible in the browser's responses. */
export const SERVED_BY_HEADER = 'x-served-by';
/** Marks a 502 that the proxy made itself (no instance answered), so a test can tell it from an instance's. */
export const PROXY_ERROR_HEADER = 'x-proxy-error';

/** Methods a reset may replay on the next instance. */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD']);

export class RoundRobinProxy {
  readonly records: ProxiedRequest[] = [];
  private server: http.Server | undefined;
  private readonly sockets = new Set<Socket>();
  private next = 0;
  private seq = 0;

  constructor(
    readonly port: number,
    private readonly upstreams: readonly Upstream[],
  ) {}

  get origin(): string {
    return `http://localhost:${this.port}`;
  }

  async start(): Promise<void> {
    const server = http.createServer((request, response) => void this.handle(request, response));
    server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, 'localhost', () => resolve());
    });
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    // Browsers keep connections open: close them, or close() waits for them forever.
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Where the record stands now: pass it to `since` to get the requests made after this point. */
  mark(): number {
    return this.seq;
  }

  since(mark: number): ProxiedRequest[] {
    return this.records.filter((record) => record.seq >= mark).sort((a, b) => a.seq - b.seq);
  }

  private async handle(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const seq = this.seq++;
    const startedAt = Date.now();
    const record: ProxiedRequest = {
      seq,
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      instance: undefined,
      status: 0,
      startedAt,
      ms: 0,
    };
    this.records.push(record);
    // The body is read first, so that a request can go to the next instance when the first refuses the
    // connection (nothing of it was sent then). The portal's request bodies are small forms and JSON.
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of request) chunks.push(chunk as Buffer);
    } catch {
      record.proxyError = 'client aborted';
      return;
    }
    const body = Buffer.concat(chunks);
    const first = this.next;
    this.next = (this.next + 1) % this.upstreams.length;
    const clientAddress = request.socket.remoteAddress ?? '127.0.0.1';
    const forwardedFor = request.headers['x-forwarded-for'];
    const headers: IncomingHttpHeaders = {
      ...forwardable(request.headers),
      'x-forwarded-for': forwardedFor ? `${String(forwardedFor)}, ${clientAddress}` : clientAddress,
      'x-forwarded-proto': 'http',
      'x-forwarded-host': request.headers.host ?? `localhost:${this.port}`,
      'content-length': String(body.length),
    };
    let lastError = 'no instance';
    for (let attempt = 0; attempt < this.upstreams.length; attempt += 1) {
      const upstream = this.upstreams[(first + attempt) % this.upstreams.length]!;
      const outcome = await this.forward(upstream, request, response, headers, body, record);
      if (outcome === 'answered') return;
      lastError = outcome.error;
      // A refused connection is passed on to the next instance: the request never reached this one. Any other
      // failure (reset, hang-up) may have happened after the instance acted on it, so it is replayed only for a
      // GET or HEAD, which change nothing (as nginx's proxy_next_upstream does by default).
      if (!outcome.refused && !IDEMPOTENT_METHODS.has(record.method)) break;
    }
    record.status = 502;
    record.proxyError = lastError;
    record.ms = Date.now() - startedAt;
    if (!response.headersSent) {
      response.writeHead(502, { 'content-type': 'text/plain', [PROXY_ERROR_HEADER]: lastError });
    }
    response.end(`Bad gateway: ${lastError}`);
  }

  private forward(
    upstream: Upstream,
    request: http.IncomingMessage,
    response: http.ServerResponse,
    headers: IncomingHttpHeaders,
    body: Buffer,
    record: ProxiedRequest,
  ): Promise<'answered' | { refused: boolean; error: string }> {
    return new Promise((resolve) => {
      // A new connection per request (no keep-alive pool): a killed instance then shows as a refused connection
      // at once, instead of as a pooled socket that turns out dead mid-request.
      const outgoing = http.request({
        host: 'localhost',
        port: upstream.port,
        method: request.method,
        path: request.url,
        headers,
        agent: false,
      });
      outgoing.on('response', (answer) => {
        record.instance = upstream.name;
        record.status = answer.statusCode ?? 0;
        record.ms = Date.now() - record.startedAt;
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, {
          ...forwardable(answer.headers),
          [SERVED_BY_HEADER]: upstream.name,
        });
        answer.pipe(response);
        answer.on('error', () => response.destroy());
        resolve('answered');
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        const refused = error.code === 'ECONNREFUSED';
        // A reset or hang-up is that instance's doing (killed mid-request, say); a refusal is nobody's answer.
        if (!refused) record.instance = upstream.name;
        resolve({ refused, error: error.code ?? error.message });
      });
      // The browser gave up before the answer came: stop the instance's request too.
      response.once('close', () => {
        if (!response.writableFinished) outgoing.destroy();
      });
      outgoing.end(body);
    });
  }
}
