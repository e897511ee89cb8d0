import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiClient } from '../api-client.js';
import { paramNamesOf } from './call.js';
import { apiCallers } from './caller.js';
import { ALL_API_CALLS, apiCalls } from './calls.js';
import { isApiError } from './errors.js';
import { apiPaths } from './paths.js';

describe('the declarations', () => {
  it.each(ALL_API_CALLS.map((call) => [`${call.method} ${call.path}`, call] as const))(
    '%s declares exactly the params of its path',
    (_name, call) => {
      const declared = call.params ? Object.keys((call.params as unknown as { shape: object }).shape) : [];
      expect(declared.sort()).toEqual(paramNamesOf(call.path).sort());
    },
  );

  it('spell the spec’s paths (section 7)', () => {
    expect(apiPaths.isFederated('00u 1/x')).toBe('/api/profile/00u%201%2Fx/isfederated');
    expect(apiPaths.stepUpVerify('00u1', 'google-auth')).toBe('/api/stepup/00u1/google-auth/verify');
    expect(apiPaths.multifactor('googleauth', '00u1', 'opt-in')).toBe(
      '/api/multifactor/googleauth/00u1/opt-in',
    );
    expect(apiCalls.multifactor.email.reset).toMatchObject({
      method: 'DELETE',
      path: '/api/multifactor/email/:sub/reset',
    });
  });
});

/** Answers by path; records what each request sent. */
describe('apiCallers against a real HTTP server', () => {
  let server: http.Server;
  let baseUrl: string;
  const seen: { method?: string; url?: string; body: string }[] = [];
  /** The held answer of a details request, once one arrived. */
  let hold: (() => void) | undefined;
  let heldArrived: () => void = () => undefined;

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      response.setHeader('Access-Control-Allow-Origin', '*');
      response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
      response.setHeader('Access-Control-Allow-Methods', 'GET, PUT, POST, DELETE');
      response.setHeader('Access-Control-Expose-Headers', 'Retry-After');
      if (request.method === 'OPTIONS') {
        response.writeHead(204).end();
        return;
      }
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        seen.push({ method: request.method, url: request.url, body });
        const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
          response
            .writeHead(status, { 'Content-Type': 'application/json', ...headers })
            .end(JSON.stringify(value));
        const url = request.url ?? '';
        if (url.endsWith('/isfederated')) json(200, JSON.stringify({ isFederated: true }));
        else if (url.endsWith('/challenge') && request.method === 'GET')
          json(200, JSON.stringify({ challengeUser: 'no' }));
        else if (url.endsWith('/change')) json(200, 'OK');
        else if (url.includes('/activate')) json(400, { error: 'ERROR: invalid code', code: 'invalid_code' });
        else if (url.includes('/verify'))
          json(429, { error: 'Too many wrong codes.', code: 'rate_limited' }, { 'Retry-After': '42' });
        else if (url.endsWith('/details')) {
          hold = () => json(200, JSON.stringify({ enrolled: false, enrolledDate: null }));
          heldArrived();
        } else json(404, { error: 'Not found', code: 'not_found' });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const client = () => createApiClient({ baseUrl, getAccessToken: () => 'token-123' });

  it('builds the path from the template and its params, and returns the checked answer', async () => {
    await expect(apiCallers.isFederated(client(), { params: { sub: '00u 1' } })).resolves.toEqual({
      isFederated: true,
    });
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/api/profile/00u%201/isfederated' });
  });

  it('rejects a success answer outside the response schema with an ApiError', async () => {
    const failure: unknown = await apiCallers
      .stepUpChallenge(client(), { params: { sub: '00u1' } })
      .catch((error: unknown) => error);
    expect(isApiError(failure)).toBe(true);
    expect(failure).toMatchObject({ status: 200, code: 'invalid_response' });
  });

  it('takes any ok answer as done where the spec says so', async () => {
    await expect(
      apiCallers.passwordChange(client(), {
        params: { sub: '00u1' },
        body: { OldPassword: 'Old-Pass-1', NewPassword: 'New-Pass-2' },
      }),
    ).resolves.toBeUndefined();
    expect(seen.at(-1)).toMatchObject({
      method: 'PUT',
      body: JSON.stringify({ OldPassword: 'Old-Pass-1', NewPassword: 'New-Pass-2' }),
    });
  });

  it("carries the refusal's code and Retry-After into the ApiError", async () => {
    await expect(
      apiCallers.multifactor.email.activate(client(), { params: { sub: '00u1' }, body: { code: '123456' } }),
    ).rejects.toMatchObject({ status: 400, code: 'invalid_code', message: 'ERROR: invalid code' });
    await expect(
      apiCallers.stepUpVerify(client(), {
        params: { sub: '00u1', factor: 'email' },
        body: { passCode: '1' },
      }),
    ).rejects.toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 42 });
  });

  it('does not send a body that breaks its schema', async () => {
    const before = seen.length;
    await expect(
      apiCallers.multifactor.googleAuth.reset(client(), {
        params: { sub: '00u1' },
        body: { optOut: false as unknown as true },
      }),
    ).rejects.toMatchObject({ status: 0, code: 'invalid_request', message: 'optOut: optOut must be true' });
    expect(seen.length).toBe(before);
  });

  it('ends the request when its signal aborts', async () => {
    const controller = new AbortController();
    const arrived = new Promise<void>((resolve) => (heldArrived = resolve));
    const pending = apiCallers.multifactor.googleAuth.details(
      client(),
      { params: { sub: '00u1' } },
      { signal: controller.signal },
    );
    await arrived;
    controller.abort();
    await expect(pending).rejects.toMatchObject({ name: 'ApiError', code: 'aborted' });
    hold?.();
  });
});
