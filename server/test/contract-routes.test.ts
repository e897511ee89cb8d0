import type { FastifyInstance } from 'fastify';
import { ALL_API_CALLS, apiCalls, apiPaths, errorResponseSchema } from 'shared-auth/contract';
import { describe, expect, it } from 'vitest';
import { ALICE, parseTwice, startApp, subOf, tokensFor, appForBlock } from './helpers.js';

/**
 * Routes under /api that are not calls of the portal: Okta's session endpoint, which okta-auth-js asks at
 * sign-out in embedded mode (oidc/okta-compat.ts).
 */
const NOT_PORTAL_CALLS = ['GET /api/v1/sessions/me', 'DELETE /api/v1/sessions/me'];

/** Every route as `METHOD /path`, read from Fastify's route tree (HEAD is Fastify's own twin of each GET). */
function routesOf(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^(.*?)[├└]── (\S+)(?: \(([^)]+)\))?$/.exec(line);
    if (!match) continue;
    const [, indent = '', segment = '', methods] = match;
    const depth = indent.length / 4;
    prefixes.length = depth;
    const path = `${prefixes.join('')}${segment}`;
    prefixes.push(segment);
    for (const method of methods?.split(', ') ?? []) {
      if (method !== 'HEAD') routes.push(`${method} ${path}`);
    }
  }
  return routes;
}

describe('the routes under /api are the contract’s calls', () => {
  const t = appForBlock(() => startApp());

  it('registers exactly the declared calls, each once', () => {
    const served = routesOf(t.app).filter((route) => route.split(' ')[1]?.startsWith('/api/'));
    const declared = ALL_API_CALLS.map((call) => `${call.method} ${call.path}`);
    expect(new Set(declared).size).toBe(declared.length);
    expect(served.filter((route) => !NOT_PORTAL_CALLS.includes(route)).sort()).toEqual([...declared].sort());
  });

  it('reads nested routes of the tree with their whole path', () => {
    // The provider's interaction step is printed as a child of its page's route.
    expect(routesOf(t.app)).toContain('POST /oauth2/default/interaction/:uid/:step');
  });

  it('answers a declared call with JSON text of its response schema, and a refusal with error and code', async () => {
    const { access_token: accessToken } = await tokensFor(t.app, ALICE);
    const sub = subOf(accessToken);
    const ok = await t.app.inject({
      url: apiPaths.isFederated(sub),
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(apiCalls.isFederated.response.parse(parseTwice(ok.body))).toEqual({ isFederated: false });

    const refused = await t.app.inject({
      url: apiPaths.isFederated('00uSomeoneElse00000'),
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(refused.statusCode).toBe(403);
    expect(errorResponseSchema.parse(refused.json())).toEqual({
      error: 'You can only access your own account',
      code: 'forbidden_sub',
    });
  });

  // The auth hook is attached to each route as it is registered (routes/api/index.ts): none may slip through,
  // including the HEAD twin Fastify makes of each GET.
  it.each(
    ALL_API_CALLS.filter((call) => !call.public).flatMap((call) =>
      (call.method === 'GET' ? (['GET', 'HEAD'] as const) : [call.method]).map(
        (method) => [method, call.path] as const,
      ),
    ),
  )('%s %s without a token is refused with 401 before anything else', async (method, path) => {
    const url = path.replace(/:sub/g, '00u1').replace(/:factor/g, 'email');
    const response = await t.app.inject({ method, url });
    expect(response.statusCode).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });
});
