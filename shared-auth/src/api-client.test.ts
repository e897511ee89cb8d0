import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiClient, isApiError, parseJsonTwice } from './api-client.js';
import { createSharedRenewal } from './session/renewal.js';

describe('parseJsonTwice', () => {
  it('parses JSON text that holds JSON text (the spec answer shape)', () => {
    const body = JSON.stringify(JSON.stringify({ isFederated: true }));
    expect(parseJsonTwice(body)).toEqual({ isFederated: true });
  });

  it('parses a string already unwrapped once by the transport', () => {
    expect(parseJsonTwice('{"Domain":"http://localhost:3000"}')).toEqual({ Domain: 'http://localhost:3000' });
  });

  it('passes plain objects through untouched (error bodies)', () => {
    const error = { error: 'Email cannot be changed' };
    expect(parseJsonTwice(error)).toBe(error);
  });

  it('keeps text that is not JSON as it is instead of throwing', () => {
    expect(parseJsonTwice('Bad Gateway')).toBe('Bad Gateway');
  });

  it('treats an empty body as no data', () => {
    expect(parseJsonTwice('')).toBeUndefined();
  });
});

describe('createApiClient against a real HTTP server', () => {
  let server: http.Server;
  let baseUrl: string;
  const seen: { authorization?: string; contentType?: string; accept?: string }[] = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      // jsdom enforces CORS like a browser: the test page's origin differs from this server's.
      response.setHeader('Access-Control-Allow-Origin', '*');
      response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
      response.setHeader('Access-Control-Allow-Methods', 'GET, PUT');
      response.setHeader('Access-Control-Expose-Headers', 'WWW-Authenticate');
      if (request.method === 'OPTIONS') {
        response.writeHead(204).end();
        return;
      }
      seen.push({
        authorization: request.headers.authorization,
        contentType: request.headers['content-type'],
        accept: request.headers.accept,
      });
      if (request.url === '/ended' || request.url === '/no-token') {
        response.writeHead(401, {
          'Content-Type': 'application/json',
          'WWW-Authenticate':
            request.url === '/ended'
              ? 'Bearer error="invalid_token", error_description="The sign-in session has ended"'
              : 'Bearer',
        });
        response.end(JSON.stringify({ error: 'Sign in again' }));
        return;
      }
      if (request.url === '/session' && request.headers.authorization !== 'Bearer renewed') {
        // The grant of the token sent has ended (a password change): only a renewed token is accepted.
        response.writeHead(401, {
          'Content-Type': 'application/json',
          'WWW-Authenticate':
            'Bearer error="invalid_token", error_description="The sign-in session has ended"',
        });
        response.end(
          JSON.stringify({ error: 'The sign-in session of this access token has ended; sign in again' }),
        );
        return;
      }
      if (request.url === '/reauthenticate') {
        response.writeHead(403, { 'Content-Type': 'application/json' });
        response.end(
          JSON.stringify({ error: "Confirm it's you", code: 'reauthentication_required', proof: 'sign-in' }),
        );
        return;
      }
      if (request.url === '/refused') {
        response.writeHead(403, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ error: 'You may only change your own account' }));
        return;
      }
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(JSON.stringify({ ok: true })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends the bearer token and JSON headers, and returns the doubly parsed body', async () => {
    const client = createApiClient({ baseUrl, getAccessToken: async () => 'token-123' });
    const response = await client.request({ method: 'PUT', url: '/ok', data: { firstName: 'Alice' } });
    expect(response.data).toEqual({ ok: true });
    expect(seen.at(-1)).toEqual({
      authorization: 'Bearer token-123',
      contentType: 'application/json',
      accept: 'application/json',
    });
  });

  it('tells the page when the API refuses the token it sent (the session ended), and only then', async () => {
    const ended = jest.fn();
    const client = createApiClient({ baseUrl, getAccessToken: () => 'token-123', onSessionEnded: ended });
    await expect(client.request({ method: 'GET', url: '/refused' })).rejects.toMatchObject({ status: 403 });
    await expect(client.request({ method: 'GET', url: '/no-token' })).rejects.toMatchObject({ status: 401 });
    expect(ended).not.toHaveBeenCalled();
    await expect(client.request({ method: 'GET', url: '/ended' })).rejects.toMatchObject({
      status: 401,
      message: 'Sign in again',
    });
    expect(ended).toHaveBeenCalledTimes(1);
  });

  it("turns a refusal into an ApiError carrying the server's error text and status", async () => {
    const client = createApiClient({ baseUrl, getAccessToken: () => 'token-123' });
    const failure: unknown = await client
      .request({ method: 'GET', url: '/refused' })
      .catch((error: unknown) => error);
    expect(isApiError(failure)).toBe(true);
    expect(failure).toMatchObject({ status: 403, message: 'You may only change your own account' });
    expect((failure as { proof?: unknown }).proof).toBeUndefined();
  });

  it('carries how a reauthentication_required asks to prove it is the user (proof)', async () => {
    const client = createApiClient({ baseUrl, getAccessToken: () => 'token-123' });
    await expect(client.request({ method: 'GET', url: '/reauthenticate' })).rejects.toMatchObject({
      status: 403,
      code: 'reauthentication_required',
      proof: 'sign-in',
    });
  });

  describe('when the grant of the token has ended (a password or 2-step change)', () => {
    /** A session whose token is `old` until a renewal (counted) replaces it with `result`. */
    function session(result = 'renewed', renewal: () => Promise<void> = async () => undefined) {
      let token = 'old';
      const renew = jest.fn(async (signal: AbortSignal) => {
        await renewal();
        if (!signal.aborted) token = result;
      });
      const ended = jest.fn();
      const client = createApiClient({
        baseUrl,
        getAccessToken: () => token,
        onSessionEnded: ended,
        renewSession: createSharedRenewal(renew),
      });
      return { client, renew, ended };
    }
    const sessionCalls = () => seen.filter((call) => call.authorization !== undefined);

    beforeEach(() => {
      seen.length = 0;
    });

    it('renews silently and sends the call once more with the new token; the session goes on', async () => {
      const { client, renew, ended } = session();
      await expect(client.request({ method: 'GET', url: '/session' })).resolves.toEqual({
        status: 200,
        data: { ok: true },
      });
      expect(renew).toHaveBeenCalledTimes(1);
      expect(ended).not.toHaveBeenCalled();
      expect(sessionCalls().map((call) => call.authorization)).toEqual(['Bearer old', 'Bearer renewed']);
    });

    it('shares one renewal between concurrent refused calls', async () => {
      let release!: () => void;
      const held = new Promise<void>((done) => (release = done));
      const { client, renew, ended } = session('renewed', () => held);
      const calls = Array.from({ length: 5 }, () => client.request({ method: 'GET', url: '/session' }));
      await waitUntil(() => renew.mock.calls.length === 1 && sessionCalls().length === 5);
      release();
      await expect(Promise.all(calls)).resolves.toHaveLength(5);
      expect(renew).toHaveBeenCalledTimes(1);
      expect(ended).not.toHaveBeenCalled();
      expect(sessionCalls().filter((call) => call.authorization === 'Bearer renewed')).toHaveLength(5);
    });

    it('sends again without a renewal of its own when another call already renewed the token', async () => {
      const tokens = ['old', 'renewed'];
      const renewSession = jest.fn(async () => undefined);
      const client = createApiClient({
        baseUrl,
        // The first read is the token sent; by the time the refusal arrives, another call has renewed it.
        getAccessToken: () => (tokens.length > 1 ? tokens.shift() : tokens[0]),
        renewSession,
      });
      await expect(client.request({ method: 'GET', url: '/session' })).resolves.toMatchObject({
        status: 200,
      });
      expect(renewSession).not.toHaveBeenCalled();
      expect(sessionCalls().map((call) => call.authorization)).toEqual(['Bearer old', 'Bearer renewed']);
    });

    it('falls back to signing in again (onSessionEnded) when the silent renewal fails', async () => {
      const { client, renew, ended } = session('renewed', () => Promise.reject(new Error('login_required')));
      jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      await expect(client.request({ method: 'GET', url: '/session' })).rejects.toMatchObject({
        status: 401,
        message: 'The sign-in session of this access token has ended; sign in again',
      });
      expect(renew).toHaveBeenCalledTimes(1);
      expect(ended).toHaveBeenCalledTimes(1);
      expect(sessionCalls()).toHaveLength(1);
    });

    it('does not renew in a loop when the renewed token is refused too: it signs in again', async () => {
      const { client, renew, ended } = session('still-refused');
      await expect(client.request({ method: 'GET', url: '/session' })).rejects.toMatchObject({ status: 401 });
      expect(renew).toHaveBeenCalledTimes(1);
      expect(ended).toHaveBeenCalledTimes(1);
      expect(sessionCalls().map((call) => call.authorization)).toEqual([
        'Bearer old',
        'Bearer still-refused',
      ]);
    });

    it('stops waiting for the renewal when the call is cancelled, without ending the session', async () => {
      const { client, renew, ended } = session('renewed', () => new Promise<void>(() => undefined));
      const controller = new AbortController();
      const call = client.request({ method: 'GET', url: '/session', signal: controller.signal });
      await waitUntil(() => renew.mock.calls.length === 1);
      controller.abort();
      await expect(call).rejects.toMatchObject({ code: 'aborted' });
      expect(renew.mock.calls[0]?.[0].aborted).toBe(true);
      expect(ended).not.toHaveBeenCalled();
      expect(sessionCalls()).toHaveLength(1);
    });
  });
});

/** Polls a condition the test cannot await directly (the HTTP round trips of a real server). */
async function waitUntil(condition: () => boolean, timeoutMs = 20_000): Promise<void> {
  const start = Date.now();
  while (!condition()) {
    if (Date.now() - start > timeoutMs) throw new Error('The condition did not hold in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
