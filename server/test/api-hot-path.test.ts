/**
 * What an API call does not run: the provider's middleware (middie's engine, mounted at /oauth2/default). Only
 * the scopes made after the provider mounted it run it (app.ts registers the API's before); a call that runs it
 * pays for its URL sanitising and request copying though no middleware matches /api. Seen through Fastify's
 * diagnostics channel, at the handler's start: middie marks the raw request (`originalUrl`) when it runs.
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { FastifyRequest } from 'fastify';
import { apiPaths } from 'shared-auth/contract';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ALICE,
  appForBlock,
  authorizeUrl,
  CookieJar,
  follow,
  startApp,
  subOf,
  tempDir,
  tokensFor,
} from './helpers.js';

const HANDLER_START = 'tracing:fastify.request.handler:start';

/** Whether middie ran before the handler of each request, by URL. */
const middieRan = new Map<string, boolean>();
const record = (message: unknown) => {
  const { request } = message as { request: FastifyRequest };
  middieRan.set(request.url, 'originalUrl' in request.raw);
};
afterEach(() => {
  unsubscribe(HANDLER_START, record);
  middieRan.clear();
});

describe("the provider's middleware", () => {
  const t = appForBlock(async () => {
    const dataDir = tempDir();
    const app = await startApp({}, dataDir);
    const tokens = await tokensFor(app.app, ALICE);
    return Object.assign(app, { token: tokens.access_token, sub: subOf(tokens.id_token) });
  });

  it('does not run for an API call, and runs for the sign-in page under its mount', async () => {
    subscribe(HANDLER_START, record);
    const read = await t.app.inject({
      url: apiPaths.isFederated(t.sub),
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(read.statusCode).toBe(200);
    expect(middieRan.get(apiPaths.isFederated(t.sub))).toBe(false);

    // The sign-in page is a Fastify route under the mount: the provider's edge checks run before it.
    const page = await follow(t.app, new CookieJar(), await t.app.inject(authorizeUrl()));
    expect(page.statusCode).toBe(200);
    const pageRuns = [...middieRan].filter(([url]) => url.startsWith('/oauth2/default/'));
    expect(pageRuns.length).toBeGreaterThan(0);
    expect(pageRuns.every(([, ran]) => ran)).toBe(true);
  });
});
