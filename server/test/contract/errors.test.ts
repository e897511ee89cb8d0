/**
 * The API's refusals that do not depend on the account's data, the same against each identity backend: no token
 * or a bad one (401 with a Bearer challenge), another account's {sub} (403), unknown routes and methods (404),
 * bodies that are not JSON, not an object, or too large (400 / 415 / 413, never a 500). Every refusal has the
 * contract's shape: a human `error` and a stable `code`. Tokens that need the issuer's key to make (expired, another
 * audience, another client…) are each backend's own: api.test.ts (embedded) and okta-mode.test.ts (Okta).
 */
import { API_ERROR_CODES, apiPaths } from 'shared-auth/contract';
import { beforeAll, describe, expect, it } from 'vitest';
import { useContractBackend, type ContractAccount } from './backend.js';

const backend = useContractBackend();

let ada: ContractAccount;
let bob: ContractAccount;
beforeAll(async () => {
  ada = await backend().newAccount();
  bob = await backend().newAccount({ profile: { firstName: 'Bob' } });
});

/** A raw request: the body as given (text), with the given headers. */
function send(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  headers: Record<string, string>,
  payload?: string,
) {
  return backend().app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
}

describe('401: no token, or one the API does not accept', () => {
  it('without a bearer token: 401, WWW-Authenticate: Bearer, whatever the call', async () => {
    const b = backend();
    const headersOf: Array<Record<string, string>> = [
      {},
      { authorization: 'Basic YWxpY2U6cHc=' },
      { authorization: 'Bearer' },
    ];
    for (const headers of headersOf) {
      const response = await send('GET', apiPaths.isFederated(ada.sub), headers);
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer');
      expect(response.json()).toEqual({
        error: expect.stringContaining('Sign in'),
        code: API_ERROR_CODES.unauthorized,
      });
    }
    for (const [method, url, body] of [
      ['PUT', apiPaths.profileUpdate(ada.sub), { firstName: 'Mallory' }],
      [
        'PUT',
        apiPaths.passwordChange(ada.sub),
        { OldPassword: ada.password, NewPassword: 'Tumbling-Down-7!' },
      ],
    ] as const) {
      const answer = await b.call(method, url, undefined, body);
      expect(answer.status, url).toBe(401);
      expect(answer.headers['www-authenticate']).toBe('Bearer');
      expect(answer.body).toEqual({
        error: expect.stringMatching(/no bearer access token/),
        code: API_ERROR_CODES.unauthorized,
      });
    }
    expect((await b.profileAtSource(ada)).firstName).toBe('Ada');
    expect(await b.passwordAccepted(ada, ada.password)).toBe(true);
  });

  it.each([
    ['garbage', () => 'not-a-jwt', 'The access token is not valid'],
    [
      "a token with another token's signature",
      () => `${ada.token.split('.').slice(0, 2).join('.')}.${bob.token.split('.')[2] ?? ''}`,
      'The access token signature is not valid',
    ],
    [
      'a token whose claims were changed (sub, uid of another account)',
      () => {
        const [header, payload, signature] = ada.token.split('.') as [string, string, string];
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
        const forged = { ...claims, sub: bob.sub, uid: bob.sub };
        return `${header}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${signature}`;
      },
      'The access token signature is not valid',
    ],
  ])('%s: 401 with the invalid_token challenge and the reason', async (_name, token, error) => {
    const answer = await backend().call('GET', apiPaths.isFederated(ada.sub), token());
    expect(answer.status).toBe(401);
    expect(answer.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    expect(answer.body).toEqual({ error, code: API_ERROR_CODES.unauthorized });
  });
});

describe("403: another account's {sub}", () => {
  it('is refused with the same text on every kind of call, and changes nothing at the source', async () => {
    const b = backend();
    const refusal = { error: 'You can only access your own account', code: API_ERROR_CODES.forbiddenSub };
    expect(await b.call('GET', apiPaths.isFederated(bob.sub), ada.token)).toMatchObject({
      status: 403,
      body: refusal,
    });
    expect(
      await b.call('PUT', apiPaths.profileUpdate(bob.sub), ada.token, { firstName: 'Mallory' }),
    ).toMatchObject({ status: 403, body: refusal });
    // With the victim's real current password: only the authorization stands between this and a change.
    expect(
      await b.call('PUT', apiPaths.passwordChange(bob.sub), ada.token, {
        OldPassword: bob.password,
        NewPassword: 'Tumbling-Down-7!',
      }),
    ).toMatchObject({ status: 403, body: refusal });
    expect((await b.profileAtSource(bob)).firstName).toBe('Bob');
    expect(await b.passwordAccepted(bob, bob.password)).toBe(true);
  });
});

describe('404: unknown routes and methods', () => {
  it('answers 404 with an error and the not_found code', async () => {
    const b = backend();
    for (const [method, url] of [
      ['GET', '/api/nothing-here'],
      ['GET', `/api/profile/${ada.sub}/unknown`],
      ['DELETE', apiPaths.profileUpdate(ada.sub)],
      ['GET', apiPaths.passwordChange(ada.sub)],
      ['POST', '/api/clientConfiguration/getSettings'],
      ['DELETE', '/nowhere'],
    ] as const) {
      const answer = await b.call(method, url, ada.token);
      expect(answer.status, `${method} ${url}`).toBe(404);
      expect(answer.body).toEqual({
        error: expect.stringContaining('Not found'),
        code: API_ERROR_CODES.notFound,
      });
    }
  });
});

describe('bodies the API cannot take', () => {
  const json = () => ({ authorization: `Bearer ${ada.token}`, 'content-type': 'application/json' });

  it.each([
    ['profile update', () => apiPaths.profileUpdate(ada.sub)],
    ['password change', () => apiPaths.passwordChange(ada.sub)],
  ])(
    '%s: malformed JSON, an empty body, or text are 400; XML is 415; nothing changes',
    async (_name, url) => {
      const b = backend();
      const malformed = await send('PUT', url(), json(), '{"firstName": "Al');
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json()).toEqual({
        error: 'The request body is not valid JSON',
        code: API_ERROR_CODES.invalidRequest,
      });

      const empty = await send('PUT', url(), json());
      expect(empty.statusCode).toBe(400);
      expect(empty.json()).toMatchObject({ error: expect.any(String), code: API_ERROR_CODES.invalidRequest });

      const text = await send('PUT', url(), { ...json(), 'content-type': 'text/plain' }, 'firstName=Al');
      expect(text.statusCode).toBe(400);
      expect(text.json()).toMatchObject({ error: expect.any(String) });

      const xml = await send('PUT', url(), { ...json(), 'content-type': 'application/xml' }, '<a/>');
      expect(xml.statusCode).toBe(415);
      expect(xml.json()).toEqual({
        error: 'Send the request body as application/json',
        code: API_ERROR_CODES.unsupportedMediaType,
      });

      expect(await b.profileAtSource(ada)).toMatchObject({
        firstName: 'Ada',
        lastName: 'Lovelace',
        country: 'GB',
      });
      expect(await b.passwordAccepted(ada, ada.password)).toBe(true);
    },
  );

  it('an oversized body is 413 before anything is read or checked', async () => {
    const b = backend();
    for (const [url, body] of [
      [apiPaths.profileUpdate(ada.sub), { firstName: 'x'.repeat(20_000) }],
      [
        apiPaths.passwordChange(ada.sub),
        { OldPassword: ada.password, NewPassword: `Aa1-${'x'.repeat(20_000)}` },
      ],
    ] as const) {
      const answer = await b.call('PUT', url, ada.token, body);
      expect(answer.status, url).toBe(413);
      expect(answer.body).toEqual({
        error: 'The request body is too large',
        code: API_ERROR_CODES.bodyTooLarge,
      });
    }
    expect((await b.profileAtSource(ada)).firstName).toBe('Ada');
    expect(await b.passwordAccepted(ada, ada.password)).toBe(true);
  });
});
