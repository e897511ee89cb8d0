/**
 * Issue 18: oversized bodies get 413 with the JSON `{ error }` (the sign-in page's form post: a 413 page, issue 20),
 * never a reset connection or a 500. Over a real server on loopback, since inject() never shows a reset: every /api
 * call that takes a body and the sign-in page's form post (the provider's own /v1/* endpoints are
 * provider-edge.test.ts's), with a Content-Length and
 * chunked, at 64 KB and at 4 MB, and the connection is closed rather than left to read the rest.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiPaths } from 'shared-auth/contract';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp, tokensFor } from './helpers.js';
import { newUser } from './security-helpers.js';

let t: TestApp;
let origin: string;
let token: string;
let sub: string;

beforeAll(async () => {
  t = await startApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const { user, password } = await newUser(t.app);
  sub = user.id;
  token = (await tokensFor(t.app, { email: user.email, password })).access_token;
});
afterAll(async () => t.close());

const TOO_LARGE = { error: 'The request body is too large', code: 'body_too_large' };

interface Answer {
  status: number;
  connection: string | undefined;
  json: unknown;
}

/** A JSON answer parsed; a page (the sign-in pages answer as pages) as its text. */
function parsedOrText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** One request on its own connection; a reset or a half-read answer fails the test with the socket's error. */
function send(method: string, path: string, body: Buffer, headers: Record<string, string>, chunked: boolean) {
  return new Promise<Answer>((resolve, reject) => {
    const request = http.request(`${origin}${path}`, {
      method,
      agent: false,
      // Node's client frames a DELETE's body only when told to: say chunked explicitly.
      headers: {
        ...headers,
        ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) }),
      },
    });
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        resolve({
          status: response.statusCode ?? 0,
          connection: response.headers.connection,
          json: parsedOrText(Buffer.concat(chunks).toString('utf8')),
        });
      });
    });
    request.on('error', reject);
    // Written in 16 KiB pieces, as a client streams an upload (chunked: one chunk each).
    for (let at = 0; at < body.length; at += 16 * 1024) request.write(body.subarray(at, at + 16 * 1024));
    request.end();
  });
}

function jsonBody(size: number): Buffer {
  return Buffer.from(JSON.stringify({ firstName: 'x'.repeat(size) }));
}

describe('an oversized body answers 413 with the JSON error', () => {
  const calls = (): [string, string][] => [
    ['PUT', apiPaths.profileUpdate(sub)],
    ['PUT', apiPaths.passwordChange(sub)],
    ['POST', apiPaths.reauthenticate(sub)],
    ['POST', apiPaths.stepUpSendChallenge(sub, 'email')],
    ['POST', apiPaths.stepUpVerify(sub, 'google-auth')],
    ['POST', apiPaths.multifactor('googleauth', sub, 'enroll')],
    ['POST', apiPaths.multifactor('email', sub, 'activate')],
    ['PUT', apiPaths.multifactor('email', sub, 'opt-in')],
    ['DELETE', apiPaths.multifactor('googleauth', sub, 'opt-out')],
  ];

  it('a 64 KB body to PUT profile/{sub}/update, with a Content-Length and chunked; the profile is unchanged', async () => {
    for (const chunked of [false, true]) {
      const answer = await send(
        'PUT',
        apiPaths.profileUpdate(sub),
        jsonBody(64 * 1024),
        { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        chunked,
      );
      expect(answer).toEqual({ status: 413, connection: 'close', json: TOO_LARGE });
    }
    expect((await t.app.directory.findById(sub))?.givenName).toBe('Test');
  });

  it('every /api call that takes a body, at 64 KB and at 4 MB', async () => {
    for (const [method, path] of calls()) {
      for (const size of [64 * 1024, 4 * 1024 * 1024]) {
        const answer = await send(
          method,
          path,
          jsonBody(size),
          { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          size > 64 * 1024,
        );
        expect(answer, `${method} ${path} ${size}`).toEqual({
          status: 413,
          connection: 'close',
          json: TOO_LARGE,
        });
      }
    }
  });

  it("the sign-in page's form post (a Fastify route under the provider's mount): a 413 page", async () => {
    const form = Buffer.from(`email=a%40example.com&password=${'x'.repeat(64 * 1024)}`);
    const answer = await send(
      'POST',
      '/oauth2/default/interaction/some-uid/password',
      form,
      { 'content-type': 'application/x-www-form-urlencoded' },
      false,
    );
    // The provider's pages answer as pages (issue 20), in the sign-in pages' look.
    expect(answer).toEqual({
      status: 413,
      connection: 'close',
      json: expect.stringContaining('This form is too large to be sent.'),
    });
  });

  it('refusals decided before the body is read (no token, a wrong sub) keep their own 4xx, not a reset', async () => {
    const body = jsonBody(4 * 1024 * 1024);
    const json = { 'content-type': 'application/json' };
    const noToken = await send('PUT', apiPaths.profileUpdate(sub), body, json, false);
    expect(noToken.status).toBe(401);
    expect(noToken.json).toMatchObject({ code: 'unauthorized' });
    const other = await send(
      'PUT',
      apiPaths.profileUpdate('00uSomeoneElse00000'),
      body,
      { ...json, authorization: `Bearer ${token}` },
      true,
    );
    expect(other.status).toBe(403);
    expect(other.json).toMatchObject({ code: 'forbidden_sub' });
  });
});
